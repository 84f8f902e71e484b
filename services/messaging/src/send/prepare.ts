import { ApiError } from '@switchboard/contracts';
import type { MessageContent, SendButtonsBody, SendLocationBody, SendMediaCommandBody, SendPollBody, SendTextBody } from '@switchboard/contracts';
import type { BlobStore } from '@switchboard/blob-store';
import { resolveMedia } from '../media/resolve-media.js';
import type { MediaPolicy } from '../media/resolve-media.js';

/** A send request by endpoint kind, its body already validated with the bus schema. */
export type SendRequest =
  | { kind: 'text'; body: SendTextBody }
  | { kind: 'media'; body: SendMediaCommandBody }
  | { kind: 'location'; body: SendLocationBody }
  | { kind: 'buttons'; body: SendButtonsBody }
  | { kind: 'poll'; body: SendPollBody };

/**
 * What the message will carry, as its `MessageAccepted` event records it. Media is fetched (or
 * read back, when the gateway stored it), checked and kept in the blob store here, before any
 * daily unit is taken: a bad URL costs the client nothing.
 */
export async function prepareContent(request: SendRequest, media: MediaPolicy, blobs: BlobStore): Promise<PreparedContent> {
  switch (request.kind) {
    case 'text':
      return { content: { type: 'text', text: request.body.text } };
    case 'location': {
      const { latitude, longitude, name, address } = request.body;
      return { content: { type: 'location', latitude, longitude, ...(name !== undefined ? { name } : {}), ...(address !== undefined ? { address } : {}) } };
    }
    case 'buttons': {
      const { text, buttons, footer } = request.body;
      return { content: { type: 'buttons', text, buttons, ...(footer !== undefined ? { footer } : {}) } };
    }
    case 'poll': {
      const { question, options, multipleAnswers } = request.body;
      return { content: { type: 'poll', question, options, multipleAnswers } };
    }
    case 'media': {
      const { bytes, descriptor } = await resolveMedia(request.body, media, blobs);
      // Stored before acceptance: recovery after a crash finds the bytes by the recorded sha256.
      // Inline media is there already (the gateway put it a moment ago).
      if (typeof request.body.media === 'string') {
        await blobs.put(bytes).catch((error: unknown) => {
          throw Object.assign(new ApiError('SERVICE_UNAVAILABLE', 'Media cannot be stored right now; retry later.'), { cause: error });
        });
      }
      const caption = request.body.caption;
      return { content: { type: 'media', media: descriptor, ...(caption !== undefined ? { caption } : {}) }, mediaBytes: bytes };
    }
  }
}

/** The content to record, and for media the bytes at hand. */
export interface PreparedContent {
  content: MessageContent;
  mediaBytes?: Uint8Array;
}

/** The quoted message id of a request (only texts quote). */
export function quotedIdOf(request: SendRequest): string | null {
  return request.kind === 'text' ? (request.body.quotedMessageId ?? null) : null;
}
