import { z } from 'zod';

/**
 * Message status: `pending` → `sent` (network acknowledged) → `delivered` → `read`, or `failed`.
 * Never goes backwards: a late `delivered` after `read` changes nothing.
 */
export const MessageStatus = z
  .enum(['pending', 'sent', 'delivered', 'read', 'failed'])
  .meta({ description: '`pending` → `sent` (the network acknowledged it) → `delivered` → `read`, or `failed`; never goes backwards.', example: 'delivered' });
export type MessageStatus = z.infer<typeof MessageStatus>;

const STATUS_RANK: Readonly<Record<Exclude<MessageStatus, 'failed'>, number>> = {
  pending: 0,
  sent: 1,
  delivered: 2,
  read: 3,
};

/**
 * Whether moving from `from` to `to` is progress. `failed` is terminal; it is reachable from
 * `pending` and from `sent` (the network may report an error receipt after acknowledging), never
 * after the recipient's device has the message.
 */
export function isStatusAdvance(from: MessageStatus, to: MessageStatus): boolean {
  if (from === 'failed') return false;
  if (to === 'failed') return from === 'pending' || from === 'sent';
  return STATUS_RANK[to] > STATUS_RANK[from];
}

/** Status a send call answers with: `sent` (201) once acknowledged, else `pending` (202). */
export const SendStatus = z.enum(['sent', 'pending']).meta({ description: 'Where the send stands.', example: 'sent' });
export type SendStatus = z.infer<typeof SendStatus>;

/** Message type: which send endpoint created it. */
export const MessageType = z.enum(['text', 'media', 'location', 'buttons', 'poll']).meta({ description: 'Which send endpoint created the message.', example: 'text' });
export type MessageType = z.infer<typeof MessageType>;

/** Media type of a media message. */
export const MediaType = z.enum(['image', 'video', 'document', 'audio']).meta({ description: 'The kind of media.', example: 'image' });
export type MediaType = z.infer<typeof MediaType>;

/** Byte limits per media type (api-decisions.md); inline base64 may also hit the body limit. */
export const MEDIA_MAX_BYTES: Readonly<Record<MediaType, number>> = {
  image: 5 * 1024 * 1024,
  video: 16 * 1024 * 1024,
  audio: 16 * 1024 * 1024,
  document: 100 * 1024 * 1024,
};
