import { randomBytes } from 'node:crypto';
import { proto } from '@whiskeysockets/baileys';
import type { WASocket } from '@whiskeysockets/baileys';
import { waitForEvent } from './baileys-client.js';

export const Status = proto.WebMessageInfo.Status;

/**
 * Resolves when Baileys reports `status` for message `id`. Right after login Baileys buffers
 * events, so the status may arrive folded into `messages.upsert` instead of `messages.update`.
 */
export const waitForStatus = (sock: WASocket, id: string, status: proto.WebMessageInfo.Status, timeoutMs = 10_000): Promise<number> =>
  Promise.race([
    waitForEvent(sock.ev, 'messages.update', (updates) => updates.some((u) => u.key.id === id && u.update.status === status) && Date.now(), timeoutMs),
    waitForEvent(sock.ev, 'messages.upsert', ({ messages }) => messages.some((m) => m.key.id === id && m.status === status) && Date.now(), timeoutMs),
  ]);

export const until = async <T>(probe: () => Promise<T | undefined>, timeoutMs = 10_000, everyMs = 50): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
};

/** A message id chosen before sending, so status listeners can be attached before receipts can arrive. */
export const newMessageId = (): string => `3EB0${randomBytes(8).toString('hex').toUpperCase()}`;
