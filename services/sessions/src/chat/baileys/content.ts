import type { AnyMessageContent, proto } from '@whiskeysockets/baileys';
import type { ButtonsContent, LocationContent, MediaContent } from '../driver.js';

export const MAX_BUTTONS = 3;

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
 * Baileys 7 has no builder for buttons, so this is the raw `buttonsMessage` proto, sent with
 * `relayMessage` (see the emulator proof of concept).
 */
export function buttonsMessageProto(content: ButtonsContent): proto.IMessage {
  if (content.buttons.length === 0 || content.buttons.length > MAX_BUTTONS) {
    throw new RangeError(`a buttons message needs 1 to ${MAX_BUTTONS} buttons, got ${content.buttons.length}`);
  }
  return {
    buttonsMessage: {
      contentText: content.text,
      ...(content.footer === undefined ? {} : { footerText: content.footer }),
      headerType: 1, // EMPTY: no header
      buttons: content.buttons.map((button) => ({
        buttonId: button.id,
        buttonText: { displayText: button.text },
        type: 1, // RESPONSE
      })),
    },
  };
}
