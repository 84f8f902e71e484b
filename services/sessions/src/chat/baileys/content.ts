import type { AnyMessageContent, BinaryNode, proto } from '@whiskeysockets/baileys';
import type { ButtonsContent, LocationContent, MediaContent, PollContent } from '../driver.js';

export const MAX_BUTTONS = 3;
export const MAX_POLL_OPTIONS = 12;

export function mediaMessageContent(media: MediaContent): AnyMessageContent {
  const bytes = Buffer.from(media.bytes.buffer, media.bytes.byteOffset, media.bytes.byteLength);
  const caption = media.caption === undefined ? {} : { caption: media.caption };
  switch (media.kind) {
    case 'image':
      return { image: bytes, mimetype: media.mimetype, ...caption };
    case 'video':
      return { video: bytes, mimetype: media.mimetype, ...caption };
    case 'document':
      return { document: bytes, mimetype: media.mimetype, fileName: media.filename ?? 'file', ...caption };
    case 'audio':
      // The network shows no caption under audio; a caption asked for here would be lost silently.
      if (media.caption !== undefined) throw new RangeError('audio messages carry no caption');
      return { audio: bytes, mimetype: media.mimetype };
  }
}

export function locationMessageContent(location: LocationContent): AnyMessageContent {
  return {
    location: {
      degreesLatitude: location.latitude,
      degreesLongitude: location.longitude,
      ...(location.name === undefined ? {} : { name: location.name }),
      ...(location.address === undefined ? {} : { address: location.address }),
    },
  };
}

/**
 * Buttons in the one form the network still takes from a linked device (Baileys 7 has no builder
 * for any): WhatsApp's interactive native-flow message with `quick_reply` buttons, wrapped in
 * `viewOnceMessage` with device-list metadata as the clients that report it rendering do. The old
 * `buttonsMessage` is refused (`<ack error="405">`) or shown as nothing. Sources, and what
 * recipients see, in the README ("What recipients see of buttons").
 */
export function buttonsMessageProto(content: ButtonsContent): proto.IMessage {
  if (content.buttons.length === 0 || content.buttons.length > MAX_BUTTONS) {
    throw new RangeError(`a buttons message needs 1 to ${MAX_BUTTONS} buttons, got ${content.buttons.length}`);
  }
  const interactiveMessage: proto.Message.IInteractiveMessage = {
    body: { text: content.text },
    ...(content.footer === undefined ? {} : { footer: { text: content.footer } }),
    nativeFlowMessage: {
      buttons: content.buttons.map((button) => ({ name: 'quick_reply', buttonParamsJson: JSON.stringify({ display_text: button.text, id: button.id }) })),
      messageVersion: 1,
    },
  };
  return { viewOnceMessage: { message: { messageContextInfo: { deviceListMetadata: {}, deviceListMetadataVersion: 2 }, interactiveMessage } } };
}

/**
 * The `<biz>` node a native-flow message needs beside it: without it the network takes the message
 * and no client renders the buttons; with a bare `<interactive>` it refuses it (error 479).
 * Measured against a real phone in whatsmeow PR #1235 (2026-08); `quality_control` as Baileys forks
 * send it. `nowSeconds`: the privacy-mode timestamp.
 */
export function buttonsBizNode(nowSeconds: number): BinaryNode {
  return {
    tag: 'biz',
    attrs: { actual_actors: '2', host_storage: '2', privacy_mode_ts: String(nowSeconds) },
    content: [
      { tag: 'interactive', attrs: { type: 'native_flow', v: '1' }, content: [{ tag: 'native_flow', attrs: { v: '9', name: 'mixed' } }] },
      { tag: 'quality_control', attrs: { source_type: 'third_party' } },
    ],
  };
}

/**
 * A poll: one answer (`pollCreationMessageV3`) or several (`pollCreationMessage`, any number), with
 * the `messageSecret` its recipients encrypt their votes with (see poll-votes.ts).
 */
export function pollMessageContent(poll: PollContent, messageSecret: Uint8Array): AnyMessageContent {
  if (poll.options.length < 2 || poll.options.length > MAX_POLL_OPTIONS || new Set(poll.options).size !== poll.options.length) {
    throw new RangeError(`a poll needs 2 to ${MAX_POLL_OPTIONS} distinct options, got ${poll.options.length}`);
  }
  return { poll: { name: poll.question, values: [...poll.options], selectableCount: poll.multipleAnswers ? 0 : 1, messageSecret } };
}
