import { z } from 'zod';
import type { EndpointContract } from '../common/routes.js';
import { successEnvelope } from '../common/envelope.js';
import { MessageId, SessionId } from '../common/ids.js';
import { Phone } from '../common/phone.js';
import { IsoTimestamp } from '../common/time.js';
import { ErrorCode } from '../errors/codes.js';
import { MediaSource } from './media.js';
import { MediaType, MessageStatus, MessageType, SendStatus } from './status.js';

// ---- shared field rules (api-decisions.md § Messages) ---------------------------------------

const len = (field: string, min: number, max: number) =>
  z.string().min(min, `${field} must be ${min}–${max} characters`).max(max, `${field} must be ${min}–${max} characters`);

export const MessageText = len('text', 1, 4096).meta({ description: 'The message text, 1–4096 characters.', example: 'Your order has shipped.' });
export const Caption = z.string().max(1024, 'caption must be at most 1024 characters').meta({ description: 'Text shown under the media, at most 1024 characters (not for audio).', example: 'The invoice for October' });
export const Filename = len('filename', 1, 255).meta({
  description: 'The file name the recipient sees (documents only), 1–255 characters; by default the last segment of a media URL, else `file.<ext>` from the detected type.',
  example: 'invoice-2026-10.pdf',
});
export const Footer = z.string().max(60, 'footer must be at most 60 characters').meta({ description: 'Small print under the text, at most 60 characters.', example: 'Reply to choose' });
// Not bounded by the spec; generous limits that still keep a message small.
export const LocationName = len('name', 1, 256).meta({ description: 'The place\'s name, 1–256 characters.', example: 'Central Station' });
export const LocationAddress = len('address', 1, 1024).meta({ description: 'The place\'s address, 1–1024 characters.', example: '1 Station Square' });
export const Latitude = z
  .number()
  .min(-90, 'latitude must be within [-90, 90]')
  .max(90, 'latitude must be within [-90, 90]')
  .meta({ description: 'Degrees north, -90 to 90.', example: 52.379 });
export const Longitude = z
  .number()
  .min(-180, 'longitude must be within [-180, 180]')
  .max(180, 'longitude must be within [-180, 180]')
  .meta({ description: 'Degrees east, -180 to 180.', example: 4.9 });

/** Button: one quick-reply choice of a buttons message; `id` comes back when the user taps it. */
export const Button = z
  .object({
    id: len('button id', 1, 256).meta({ description: 'Comes back in the contact\'s `button_reply` when tapped; unique within the message, 1–256 characters.', example: 'yes' }),
    text: len('button text', 1, 20).meta({ description: 'The button\'s label, 1–20 characters.', example: 'Yes, please' }),
  })
  .strict();
export type Button = z.infer<typeof Button>;

/** Always run: reports duplicate ids even when another button is invalid too. */
const ALWAYS = { when: () => true };

/** 1–3 buttons whose ids are unique within the message; a duplicate is reported at its own id. */
export const Buttons = z
  .array(Button)
  .min(1, 'buttons must have 1–3 elements')
  .max(3, 'buttons must have 1–3 elements')
  .superRefine((buttons: unknown, ctx) => {
    if (!Array.isArray(buttons)) return;
    const seen = new Set<unknown>();
    buttons.forEach((button: unknown, index) => {
      const id = typeof button === 'object' && button !== null ? (button as { id?: unknown }).id : undefined;
      if (typeof id !== 'string') return;
      if (seen.has(id)) {
        ctx.addIssue({ code: 'custom', path: [index, 'id'], message: 'button id must be unique within the message' });
      }
      seen.add(id);
    });
  }, ALWAYS)
  .meta({ description: '1–3 quick-reply buttons.' });

const target = {
  sessionId: SessionId.meta({ description: 'The connected session to send through.', example: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R' }),
  to: Phone.meta({ description: 'The recipient\'s phone number: country code and number, digits only.', example: '15551234567' }),
};

/** How the message goes out, for every kind of send. */
const delivery = {
  typing: z
    .boolean()
    .optional()
    .meta({
      description: 'Show the recipient "typing…" before the message (presence `composing`, then `paused`): about 1–3 s, by its length, within the send deadline. Default false.',
      example: true,
    }),
};

// ---- requests ------------------------------------------------------------------------------

/** POST /v1/messages/text */
export const SendTextBody = z
  .object({
    ...target, ...delivery,
    text: MessageText,
    quotedMessageId: MessageId.optional().meta({ description: 'Makes this a reply to a message sent through the same session.', example: 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K' }),
  })
  .strict();
export type SendTextBody = z.infer<typeof SendTextBody>;

/** Cross-field rules of a media body: no caption on audio, filename only on documents. */
function checkMediaFields(value: unknown, ctx: z.RefinementCtx): void {
  if (typeof value !== 'object' || value === null) return;
  const { mediaType, caption, filename } = value as Record<string, unknown>;
  if (mediaType === 'audio' && caption !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['caption'], message: 'caption is not allowed for audio' });
  }
  // Only for a valid mediaType: an unknown one is already reported and would make this noise.
  const known = MediaType.safeParse(mediaType).success;
  if (known && mediaType !== 'document' && filename !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['filename'], message: 'filename is only allowed for document' });
  }
}

/**
 * A media send's fields around `media`, whose form depends on the hop: the HTTP body carries a URL
 * or base64, the bus command a URL or a reference to bytes already in the media blob store.
 */
export function mediaSendBody<M extends z.ZodType>(media: M) {
  return z
    .object({
      ...target, ...delivery,
      mediaType: MediaType.meta({ description: 'What the media is; the bytes must match it.', example: 'image' }),
      media,
      caption: Caption.optional(),
      filename: Filename.optional(),
    })
    .strict()
    .superRefine(checkMediaFields, ALWAYS);
}

/** POST /v1/messages/media */
export const SendMediaBody = mediaSendBody(MediaSource);
export type SendMediaBody = z.infer<typeof SendMediaBody>;

/** POST /v1/messages/location */
export const SendLocationBody = z
  .object({
    ...target, ...delivery,
    latitude: Latitude,
    longitude: Longitude,
    name: LocationName.optional(),
    address: LocationAddress.optional(),
  })
  .strict();
export type SendLocationBody = z.infer<typeof SendLocationBody>;

/** POST /v1/messages/buttons */
export const SendButtonsBody = z
  .object({ ...target, ...delivery, text: MessageText, buttons: Buttons, footer: Footer.optional() })
  .strict();
export type SendButtonsBody = z.infer<typeof SendButtonsBody>;

/** The most options a poll may have, as WhatsApp allows. */
export const MAX_POLL_OPTIONS = 12;

/**
 * Not blank: at least one character that is not white space (a blank option shows as nothing).
 * An empty value is left to the length rule, so it is reported once.
 */
const notBlank = (field: string) => [(value: string) => value.length === 0 || value.trim().length > 0, `${field} must not be blank`] as const;

export const PollQuestion = len('question', 1, 255)
  .refine(...notBlank('question'))
  .meta({ description: 'The poll\'s question, 1–255 characters (WhatsApp\'s own limit).', example: 'Which day suits you?' });
export const PollOption = len('option', 1, 100)
  .refine(...notBlank('option'))
  .meta({ description: 'One answer, 1–100 characters (WhatsApp\'s own limit); unique within the poll.', example: 'Tuesday' });

/**
 * 2–12 options, each unique within the poll: a vote names an option by the SHA-256 of its text,
 * so two equal options could never be told apart. A duplicate is reported at its own index.
 */
export const PollOptions = z
  .array(PollOption)
  .min(2, `options must have 2–${MAX_POLL_OPTIONS} elements`)
  .max(MAX_POLL_OPTIONS, `options must have 2–${MAX_POLL_OPTIONS} elements`)
  .superRefine((options: unknown, ctx) => {
    if (!Array.isArray(options)) return;
    const seen = new Set<unknown>();
    options.forEach((option: unknown, index) => {
      if (typeof option !== 'string') return;
      if (seen.has(option)) ctx.addIssue({ code: 'custom', path: [index], message: 'option must be unique within the poll' });
      seen.add(option);
    });
  }, ALWAYS)
  .meta({ description: `2–${MAX_POLL_OPTIONS} answers, unique within the poll.` });

/** POST /v1/messages/poll: the recommended alternative to buttons (a poll renders on every WhatsApp client). */
export const SendPollBody = z
  .object({
    ...target, ...delivery,
    question: PollQuestion,
    options: PollOptions,
    multipleAnswers: z
      .boolean()
      .default(false)
      .meta({ description: 'Whether a contact may choose several options (default: one).', example: false }),
  })
  .strict();
export type SendPollBody = z.infer<typeof SendPollBody>;

/** Path parameters of GET /v1/messages/{messageId}. */
export const MessageIdParams = z.object({ messageId: MessageId });
export type MessageIdParams = z.infer<typeof MessageIdParams>;

// ---- responses -----------------------------------------------------------------------------

/**
 * `data` of a send: 201 with `sent` once acknowledged, 202 with `pending` past the send deadline.
 * `timestamp` is when the message was accepted.
 */
export const SendMessageResult = z.object({
  messageId: MessageId,
  status: SendStatus.meta({ description: '`sent` (201) once the network acknowledged it, `pending` (202) past the send deadline.', example: 'sent' }),
  timestamp: IsoTimestamp.meta({ description: 'When the message was accepted.', example: '2026-11-21T10:15:30.000Z' }),
});
export type SendMessageResult = z.infer<typeof SendMessageResult>;
export const SendMessageResponse = successEnvelope(SendMessageResult);
export type SendMessageResponse = z.infer<typeof SendMessageResponse>;

/** `data` of a media send: echoes `mediaType`. */
export const SendMediaResult = SendMessageResult.extend({ mediaType: MediaType.meta({ description: 'The media type sent.', example: 'image' }) });
export type SendMediaResult = z.infer<typeof SendMediaResult>;
export const SendMediaResponse = successEnvelope(SendMediaResult);
export type SendMediaResponse = z.infer<typeof SendMediaResponse>;

/** Why a message failed, on `failed` messages only. */
export const MessageFailure = z
  .object({
    code: ErrorCode.meta({ description: 'Why it failed, as an error code.', example: 'RECIPIENT_NOT_ON_CHAT_NETWORK' }),
    message: z.string().min(1).meta({ description: 'Why it failed, in words.', example: 'The recipient has no account on the chat network.' }),
  })
  .meta({ description: 'Why the message failed (`failed` only).' });
export type MessageFailure = z.infer<typeof MessageFailure>;

const ACCEPTED_AT = IsoTimestamp.meta({ description: 'When the message was accepted (outbound) or received (inbound).', example: '2026-11-21T10:15:30.000Z' });
/** When the recipient's device got it / when it was read: null until then (outbound only). */
export const DELIVERED_AT = IsoTimestamp.nullable().meta({ description: 'When the recipient\'s device got it; null until then.', example: '2026-11-21T10:15:31.000Z' });
export const READ_AT = IsoTimestamp.nullable().meta({ description: 'When the recipient read it; null until then (or never, when read receipts are off).', example: null });

/** `data` of GET /v1/messages/{id}. `timestamp`: when it was accepted. */
export const MessageStatusView = z.object({
  messageId: MessageId,
  status: MessageStatus,
  timestamp: ACCEPTED_AT,
  deliveredAt: DELIVERED_AT,
  readAt: READ_AT,
  sessionId: SessionId.optional().meta({ description: 'The session it was sent through.', example: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R' }),
  to: Phone.optional().meta({ description: 'The recipient.', example: '15551234567' }),
  type: MessageType.optional().meta({ description: 'Which send endpoint created it.', example: 'text' }),
  error: MessageFailure.optional(),
});
export type MessageStatusView = z.infer<typeof MessageStatusView>;

/** The send endpoints; MESSAGE_ENDPOINTS (history-http.ts) adds the lookup and the history. */
export const MESSAGE_SEND_ENDPOINTS = {
  sendText: { method: 'POST', path: '/v1/messages/text', status: 201, body: SendTextBody, response: SendMessageResponse },
  sendMedia: { method: 'POST', path: '/v1/messages/media', status: 201, body: SendMediaBody, response: SendMediaResponse },
  sendLocation: { method: 'POST', path: '/v1/messages/location', status: 201, body: SendLocationBody, response: SendMessageResponse },
  sendButtons: { method: 'POST', path: '/v1/messages/buttons', status: 201, body: SendButtonsBody, response: SendMessageResponse },
  sendPoll: { method: 'POST', path: '/v1/messages/poll', status: 201, body: SendPollBody, response: SendMessageResponse },
} as const satisfies Record<string, EndpointContract>;
