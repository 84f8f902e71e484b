import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { MessageEvent } from '@switchboard/contracts';
import { ContentKeys } from './content-keys.js';
import { MessageFacts } from './message-facts.js';
import { SqliteDataKeyStore } from './sqlite-data-key-store.js';

const ACC = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const ID = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K';
const accepted: MessageEvent = {
  type: 'MessageAccepted', version: 2,
  data: {
    messageId: ID, accountId: ACC, sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', to: '15551234567', quotedMessageId: null, idempotencyKeyHash: null,
    content: { type: 'location', latitude: 52.379, longitude: 4.9, name: 'Central Station' }, usageDay: '2026-11-21', acceptedAt: '2026-11-21T10:00:00.000Z',
  },
};
const received: MessageEvent = {
  type: 'MessageReceived', version: 1,
  data: {
    messageId: ID, accountId: ACC, sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', networkMessageId: '3EB0AA', from: '15551234567', to: '15557654321',
    sentAt: '2026-11-21T10:00:00.000Z', receivedAt: '2026-11-21T10:00:01.000Z', content: { type: 'contact', displayName: 'Ana', vcard: 'BEGIN:VCARD\nFN:Ana\nEND:VCARD' },
    quotedNetworkId: null, quotedMessageId: null,
  },
};

async function facts() {
  const keys = new ContentKeys(new SqliteDataKeyStore(':memory:'), randomBytes(32));
  await keys.sealingKey(ACC);
  return new MessageFacts(keys);
}

describe('message facts as stored and read', () => {
  it.each([['MessageAccepted@3', accepted, 3], ['MessageReceived@2', received, 2]] as const)('writes %s with the content sealed and reads it back opened', async (_name, fact, version) => {
    const codec = await facts();
    const stored = codec.encode(fact) as { type: string; version: number; data: { content: { type: string; sealed: string } } };
    expect(stored.version).toBe(version);
    expect(stored.data.content.type).toBe(fact.data.content.type);
    expect(JSON.stringify(stored)).not.toMatch(/Central Station|VCARD/);
    await codec.prepare([stored]);
    expect(codec.parse(stored)).toEqual(fact);
  });

  it('reads a content as erased once the account\'s key is destroyed; facts written before sealing as they are', async () => {
    const codec = await facts();
    const stored = codec.encode(accepted) as { type: string; version: number; data: { content: { keyId: string } } };
    await codec.keys.erased(ACC, [stored.data.content.keyId]);
    await codec.prepare([stored]);
    expect(codec.parse(stored)).toMatchObject({ type: 'MessageAccepted', version: 2, data: { messageId: ID, content: { type: 'erased', was: 'location' } } });
    expect(codec.parse(accepted)).toEqual(accepted);
    const sent: MessageEvent = { type: 'MessageSent', version: 1, data: { messageId: ID, networkMessageId: 'N1', sentAt: '2026-11-21T10:00:01.000Z' } };
    expect(codec.encode(sent)).toBe(sent);
  });
});
