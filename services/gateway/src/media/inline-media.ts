import { ApiError, MEDIA_MAX_BYTES, classifyMedia, mediaTooLarge } from '@switchboard/contracts';
import type { SendMediaBody, SendMediaCommandBody } from '@switchboard/contracts';
import type { BlobStore } from '@switchboard/blob-store';

/** Inline media of a send, decoded: the bytes and the type a data URL declared (a sniffing hint). */
export interface InlineMedia {
  bytes: Uint8Array;
  mimetype: string | null;
}

/** Bytes that standard padded base64 text decodes to, known without decoding it. */
export function base64Size(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return (data.length / 4) * 3 - padding;
}

/**
 * The inline media (base64 or a data URL) of a validated media body, decoded, or `null` for a URL
 * (messaging fetches those). Over its type's cap it is 422 MEDIA_TOO_LARGE with the limit, refused
 * before the bytes are allocated.
 */
export function decodeInlineMedia(body: SendMediaBody): InlineMedia | null {
  const source = classifyMedia(body.media);
  if (source === null || source.kind === 'url') return null;
  const size = base64Size(source.data);
  if (size > MEDIA_MAX_BYTES[body.mediaType]) throw mediaTooLarge(body.mediaType, size);
  return { bytes: new Uint8Array(Buffer.from(source.data, 'base64')), mimetype: source.mimetype };
}

/**
 * The body messaging gets over the bus: inline media goes to the media blob store (shared with
 * messaging and sessions) and only its reference travels, so its size is bounded by the type's cap,
 * not by the bus's message limit. Same path in both modes. A blob put for a request that then fails
 * stays until the store's retention (24 h after its last put) removes it.
 */
export async function withStoredMedia(body: SendMediaBody, blobs: BlobStore): Promise<SendMediaCommandBody> {
  const inline = decodeInlineMedia(body);
  if (inline === null) return body;
  const sha256 = await blobs.put(inline.bytes).catch((error: unknown) => {
    throw Object.assign(new ApiError('SERVICE_UNAVAILABLE', 'Media cannot be stored right now; retry later.'), { cause: error });
  });
  return { ...body, media: { sha256, size: inline.bytes.length, mimetype: inline.mimetype } };
}
