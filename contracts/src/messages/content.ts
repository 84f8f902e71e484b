import { z } from 'zod';
import { Button, Caption, Filename, Footer, Latitude, LocationAddress, LocationName, Longitude, MessageText, PollOptions, PollQuestion } from './http.js';
import { MediaType } from './status.js';

/** SHA-256 of media bytes, lower-case hex: identifies the bytes without carrying them. */
export const Sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'must be a lower-case hex SHA-256');
export type Sha256Hex = z.infer<typeof Sha256Hex>;

/** Media as the system records it once fetched/decoded and sniffed: a description, never bytes. */
export const MediaDescriptor = z.object({
  mediaType: MediaType,
  mimetype: z.string().min(3).max(255),
  sha256: Sha256Hex,
  size: z.number().int().min(1),
  filename: Filename.optional(),
});
export type MediaDescriptor = z.infer<typeof MediaDescriptor>;

/**
 * Message content: what is to be sent, by type. Text, location and buttons are kept whole because
 * a crashed send must be finishable from the stream alone. Media keeps only its descriptor; the
 * bytes sit in the media blob store under their sha256 (the source URL is not kept either: URLs
 * often embed access tokens).
 */
export const TextContent = z.object({ type: z.literal('text'), text: MessageText });
export const MediaContent = z.object({ type: z.literal('media'), media: MediaDescriptor, caption: Caption.optional() });
export const LocationContent = z.object({
  type: z.literal('location'),
  latitude: Latitude,
  longitude: Longitude,
  name: LocationName.optional(),
  address: LocationAddress.optional(),
});
export const ButtonsContent = z.object({
  type: z.literal('buttons'),
  text: MessageText,
  buttons: z.array(z.object(Button.shape)).min(1).max(3),
  footer: Footer.optional(),
});

/** A poll: `multipleAnswers` false lets a contact choose one option, true any number. */
export const PollContent = z.object({
  type: z.literal('poll'),
  question: PollQuestion,
  options: PollOptions,
  multipleAnswers: z.boolean(),
});

export const MessageContent = z.discriminatedUnion('type', [TextContent, MediaContent, LocationContent, ButtonsContent, PollContent]);
export type MessageContent = z.infer<typeof MessageContent>;
