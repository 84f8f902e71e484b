import type { WAMessage } from '@whiskeysockets/baileys';
import { describe, expect, it } from 'vitest';
import { LidSenders } from './lid-senders.js';

const byLid = (lid: string, id: string, pn?: string): WAMessage =>
  ({ key: { remoteJid: `${lid}@lid`, id, fromMe: false, ...(pn ? { remoteJidAlt: `${pn}@s.whatsapp.net` } : {}) }, message: { conversation: id } }) as WAMessage;
const unknown = async () => undefined;

describe('naming LID senders by number', () => {
  it('passes a message with its number, and names a LID-only one from the stored mapping', async () => {
    const senders = new LidSenders();
    expect(await senders.name(byLid('915550001', 'a', '15550001'), unknown)).toHaveLength(1);
    const [named] = await senders.name(byLid('915550001', 'b'), async (lid) => (lid === '915550001@lid' ? '15550001@s.whatsapp.net' : undefined));
    expect(named?.key.remoteJidAlt).toBe('15550001@s.whatsapp.net');
  });

  it('holds LID-only messages until a message or a mapping names the LID, then gives them first, in order', async () => {
    const senders = new LidSenders();
    expect(await senders.name(byLid('915550002', 'first'), unknown)).toEqual([]);
    expect(await senders.name(byLid('915550002', 'second'), unknown)).toEqual([]);
    expect(await senders.name(byLid('915550003', 'other'), unknown)).toEqual([]);
    const out = await senders.name(byLid('915550002', 'third', '15550002'), unknown);
    expect(out.map((m) => [m.key.id, m.key.remoteJidAlt])).toEqual([
      ['first', '15550002@s.whatsapp.net'], ['second', '15550002@s.whatsapp.net'], ['third', '15550002@s.whatsapp.net'],
    ]);
    expect(senders.release('915550003@lid', '15550003@s.whatsapp.net').map((m) => m.key.id)).toEqual(['other']);
    expect(senders.held).toBe(0);
  });

  it('holds at most 256 messages, dropping the oldest', async () => {
    const senders = new LidSenders();
    for (let i = 0; i < 258; i++) await senders.name(byLid('915550004', `m${i}`), unknown);
    expect(senders.held).toBe(256);
    expect(senders.release('915550004', '15550004').map((m) => m.key.id).slice(0, 2)).toEqual(['m2', 'm3']);
  });
});
