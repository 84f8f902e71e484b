import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import type { QuotaEvent } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';
import { toNewEvent } from '@switchboard/service-kit';
import { accountsProjection } from './accounts-projection.js';
import { QuotaReadModel } from './read-model.js';
import { createReadModelSchema } from './schema.js';
import { usageProjection } from './usage-projection.js';

const acc = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const other = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E2G';
const key1 = 'key_01JD8Z5X0A1B2C3D4E5F6G7H8J';
const key2 = 'key_01JD8Z5X0A1B2C3D4E5F6G7H9K';
const at = '2026-11-21T10:00:00.000Z';
const meta = { accountId: acc, correlationId: 'c', causationId: 'c', occurredAt: at };
const msg = (n: number) => `msg_01JD8Z7A1B2C3D4E5F6G7H${String(n).padStart(4, '0')}`;

function setup() {
  const db = new DatabaseSync(':memory:');
  createReadModelSchema(db);
  const projections = { account: accountsProjection(db), usage: usageProjection(db) };
  let position = 0n;
  const apply = (...events: QuotaEvent[]) => {
    for (const event of events) {
      const stored = toNewEvent(event, meta);
      const category = event.type.startsWith('Daily') ? 'usage' : 'account';
      const recorded: RecordedEvent = {
        stream: `${category}-x`, type: stored.type, data: stored.data, metadata: stored.metadata ?? {},
        revision: 0n, position: ++position, recordedAt: new Date(at), id: String(position),
      };
      projections[category].apply(recorded);
    }
  };
  return { apply, read: new QuotaReadModel(db) };
}

const opened = (accountId: string, name: string | null): QuotaEvent => ({ type: 'AccountOpened', version: 1, data: { accountId, name, plan: 'free', openedAt: at } });
const issued = (accountId: string, keyId: string, keyHash: string): QuotaEvent => ({
  type: 'ApiKeyIssued', version: 1, data: { accountId, keyId, keyHash, scopes: ['api'], issuedAt: at },
});
const reservedUnit = (n: number, day = '2026-11-21'): QuotaEvent => ({
  type: 'DailyQuotaReserved', version: 1, data: { accountId: acc, day, messageId: msg(n), limit: 50, reservedAt: at },
});

describe('quota read models', () => {
  it('finds a key by hash with its account, scopes and current plan; revocation shows', () => {
    const { apply, read } = setup();
    apply(opened(acc, 'Acme'), issued(acc, key1, 'a'.repeat(64)), { type: 'PlanChanged', version: 1, data: { accountId: acc, from: 'free', to: 'basic', changedAt: at } });
    expect(read.keyByHash('a'.repeat(64))).toEqual({ keyId: key1, accountId: acc, scopes: ['api'], createdAt: at, revokedAt: null, plan: 'basic' });
    apply({ type: 'ApiKeyRevoked', version: 1, data: { accountId: acc, keyId: key1, revokedAt: '2026-11-21T11:00:00.000Z' } });
    expect(read.keyById(key1)?.revokedAt).toBe('2026-11-21T11:00:00.000Z');
    expect(read.keyByHash('b'.repeat(64))).toBeUndefined();
  });

  it('keeps the first owner when one hash is registered twice', () => {
    const { apply, read } = setup();
    apply(opened(acc, null), opened(other, null), issued(acc, key1, 'c'.repeat(64)), issued(other, key2, 'c'.repeat(64)));
    expect(read.keyByHash('c'.repeat(64))?.accountId).toBe(acc);
  });

  it('counts slots held and units used today per account', () => {
    const { apply, read } = setup();
    const ses = (n: number) => `ses_01JD8Z6Q9V4N2C3B5X7M1K0P${n}Z`;
    apply(opened(acc, 'Acme'), opened(other, 'Other'));
    apply(...[1, 2, 3].map((n): QuotaEvent => ({ type: 'SessionSlotReserved', version: 1, data: { accountId: acc, sessionId: ses(n), limit: 5, reservedAt: at } })));
    apply({ type: 'SessionSlotReleased', version: 1, data: { accountId: acc, sessionId: ses(2), releasedAt: at } });
    apply(reservedUnit(1), reservedUnit(2), reservedUnit(3), reservedUnit(4, '2026-11-20'));
    apply({ type: 'DailyQuotaRefunded', version: 1, data: { accountId: acc, day: '2026-11-21', messageId: msg(2), refundedAt: at } });
    expect(read.account(acc, '2026-11-21')).toEqual({ accountId: acc, name: 'Acme', plan: 'free', activeSessions: 2, messagesToday: 2, closedAt: null });
    expect(read.account(acc, '2026-11-22')?.messagesToday).toBe(0);
    expect(read.accounts('2026-11-21', 10, 0)).toEqual({
      total: 2,
      accounts: [expect.objectContaining({ accountId: acc }), { accountId: other, name: 'Other', plan: 'free', activeSessions: 0, messagesToday: 0, closedAt: null }],
    });
  });

  it('shows a closed account with when it closed, still listed, its usage kept', () => {
    const { apply, read } = setup();
    apply(opened(acc, 'Acme'), issued(acc, key1, 'a'.repeat(64)), reservedUnit(1));
    apply({ type: 'ApiKeyRevoked', version: 1, data: { accountId: acc, keyId: key1, revokedAt: at } }, { type: 'AccountClosed', version: 1, data: { accountId: acc, closedAt: at } });
    expect(read.account(acc, '2026-11-21')).toMatchObject({ accountId: acc, closedAt: at, messagesToday: 1 });
    expect(read.accounts('2026-11-21', 10, 0).accounts).toEqual([expect.objectContaining({ accountId: acc, closedAt: at })]);
    expect(read.keyByHash('a'.repeat(64))?.revokedAt).toBe(at);
  });
});
