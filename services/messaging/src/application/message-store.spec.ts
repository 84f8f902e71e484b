import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, SqliteEventStore } from '@switchboard/eventstore';
import { ProjectionRunner } from '@switchboard/service-kit';
import { ContentKeys } from '../contents/content-keys.js';
import { MessageFacts } from '../contents/message-facts.js';
import { SqliteDataKeyStore } from '../contents/sqlite-data-key-store.js';
import { messageHistoryProjection } from '../projections/message-history/projection.js';
import { messageStatusProjection } from '../projections/message-status/projection.js';
import { MessageStatusQueries } from '../projections/message-status/queries.js';
import { MessageStore } from './message-store.js';

const ACC = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const SES = 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R';
const MSG = 'msg_01JD8Z7A1B2C3D4E5F6G7H8J9K';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function fixture() {
  const dir = mkdtempSync(join(tmpdir(), 'sb-message-store-'));
  const store = new SqliteEventStore(join(dir, 'events.sqlite'));
  const db = openSqliteDatabase(join(dir, 'read-models.sqlite'), '');
  // Started by the test: until then the read models stay behind, as a busy or stalled projection would.
  const runner = new ProjectionRunner(store, db, [messageStatusProjection(db), messageHistoryProjection(db)]);
  const keys = new ContentKeys(new SqliteDataKeyStore(join(dir, 'data-keys.sqlite')), randomBytes(32));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }), () => store.close(), () => db.close(), () => runner.stop());
  const messages = new MessageStore(store, { now: () => new Date() }, runner, new MessageFacts(keys));
  return { messages, runner, statuses: new MessageStatusQueries(db) };
}

describe('MessageStore', () => {
  it('does not hold a command for the read models; a read that waits for them first sees every command made here', async () => {
    const { messages, runner, statuses } = await fixture();
    await messages.execute(MSG, ACC, {
      type: 'AcceptMessage', messageId: MSG, accountId: ACC, sessionId: SES, to: '15551234567', content: { type: 'text', text: 'hi' },
      quotedMessageId: null, idempotencyKeyHash: null, usageDay: '2026-11-29',
    });
    await messages.execute(MSG, ACC, { type: 'RecordSent', networkMessageId: '3EB0AA' });
    // Both commands returned though the read models have not applied them.
    expect(statuses.find(ACC, MSG)).toBeNull();
    const read = messages.caughtUp();
    await runner.start();
    await read;
    expect(statuses.find(ACC, MSG)?.view.status).toBe('sent');
  });
});
