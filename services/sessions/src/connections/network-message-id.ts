import { createHash } from 'node:crypto';

/**
 * The id a message carries on the chat network, derived from our message id: a redelivery of the
 * same message (messaging retrying after an unknown outcome, or recovering after a crash) goes out
 * under the same id, which phones show once, instead of as a second message. Shaped like the ids
 * WhatsApp Web mints (`3EB0` + 20 upper-case hex digits).
 */
export function networkMessageIdFor(messageId: string): string {
  return `3EB0${createHash('sha256').update(messageId).digest('hex').slice(0, 20).toUpperCase()}`;
}
