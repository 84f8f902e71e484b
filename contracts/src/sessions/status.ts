import { z } from 'zod';

/**
 * Session status. `pending` → `connected` (QR scanned) → `disconnected` (logged out or dropped
 * for good); `pending` → `timeout` (QR lifetime over); any → `error` (unrecoverable failure).
 */
export const SessionStatus = z.enum(['pending', 'connected', 'disconnected', 'timeout', 'error']).meta({
  description: '`pending` (waiting for a scan) → `connected`; `disconnected` (logged out or dropped for good), `timeout` (no scan in time), `error` (unrecoverable).',
  example: 'connected',
});
export type SessionStatus = z.infer<typeof SessionStatus>;

/** Statuses that hold one of the plan's concurrent-session slots. */
export const SLOT_HOLDING_STATUSES: readonly SessionStatus[] = ['pending', 'connected'];

/** Whether a session in this status counts against the plan's concurrent sessions. */
export function holdsSessionSlot(status: SessionStatus): boolean {
  return SLOT_HOLDING_STATUSES.includes(status);
}

/** Session name: optional label given at creation, 1–100 characters. */
export const SessionName = z
  .string()
  .min(1, 'name must be 1–100 characters')
  .max(100, 'name must be 1–100 characters')
  .meta({ description: 'A label for the session, 1–100 characters.', example: 'Support line' });
export type SessionName = z.infer<typeof SessionName>;

/** QR code image as returned to clients: a PNG data URL. */
export const QrCodeDataUrl = z
  .string()
  .regex(/^data:image\/png;base64,[A-Za-z0-9+/]+={0,2}$/, 'must be a data:image/png;base64 URL')
  .meta({ description: 'The QR code to scan, as a PNG data URL (show it as an image).', example: 'data:image/png;base64,iVBORw0KGgo=' });
export type QrCodeDataUrl = z.infer<typeof QrCodeDataUrl>;

/**
 * The code to type on the phone instead of scanning the QR (WhatsApp: Linked devices → Link a
 * device → "Link with phone number instead"): 8 characters of the network's alphabet (digits 1–9
 * and letters but I, O and U), shown as WhatsApp shows them, in two groups of four.
 */
export const PairingCode = z
  .string()
  .regex(/^[1-9A-HJ-NP-TV-Z]{4}-[1-9A-HJ-NP-TV-Z]{4}$/, 'must be 8 characters in two groups of four, e.g. "ABCD-EFGH"')
  .meta({
    description:
      'Only when the session was created with `phoneNumber`: the code to type on that phone (WhatsApp → Linked devices → Link a device → ' +
      '"Link with phone number instead"). Valid until the pairing ends (about 2 min 40 s); the QR code works too.',
    example: 'ABCD-EFGH',
  });
export type PairingCode = z.infer<typeof PairingCode>;
