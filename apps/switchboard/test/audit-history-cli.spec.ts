import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messageStream } from '@switchboard/contracts';
import { A, B, C1, DAY, LINKED, M1, M2, M3, MB, R1, R2, R3, S, id, seedAuditData } from './support/audit-data.js';
import { runCli } from './support/cli.js';

let dataDir: string;
let midway: string;

interface Fact { recordedAt: string; service: string; stream: string; revision: number; type: string; summary: string; data: Record<string, unknown>; requestId: string | null; causationId: string | null }

async function history(...args: string[]): Promise<Fact[]> {
  const run = await runCli(['audit', 'history', '--json', ...args], dataDir);
  expect([run.code, run.stderr]).toEqual([0, '']);
  const parsed = JSON.parse(run.stdout) as { facts: Fact[]; count: number };
  expect(parsed.count).toBe(parsed.facts.length);
  return parsed.facts;
}

const shape = (facts: Fact[]) => facts.map((f) => `${f.type} ${f.stream.replace(/^(\w+)-/, '')}`);

beforeAll(async () => {
  ({ dataDir, midway } = await seedAuditData());
});
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
});

describe('switchboard audit history', () => {
  it('shows a message from its daily unit to read, with the contact\'s reply before our next message to them', async () => {
    const facts = await history('--message', M1);
    expect(shape(facts)).toEqual([
      `DailyQuotaReserved ${A}-${DAY}`,
      `MessageAccepted ${M1}`,
      `MessageSent ${M1}`,
      `MessageReceived ${R1}`,
      `MessageDelivered ${M1}`,
      `MessageRead ${M1}`,
    ]);
    expect(facts.map((f) => f.service)).toEqual(['quota', 'messaging', 'messaging', 'messaging', 'messaging', 'messaging']);
    expect(facts[1]).toMatchObject({ requestId: `req-${M1}`, causationId: `req-${M1}`, summary: `to ${C1}, session ${S}, text "Your order #42 has shipped and arrives t…", usage day ${DAY}` });
    expect(facts[5]).toMatchObject({ requestId: `req-${M1}`, causationId: `chat-receipt:MessageRead:3EB0M01` });
    // The record without what stands for a secret: the Idempotency-Key's hash is left out.
    expect(facts[1]!.data).not.toHaveProperty('idempotencyKeyHash');
    expect(facts[1]!.data).toMatchObject({ content: { type: 'text', text: 'Your order #42 has shipped and arrives tomorrow before noon' } });

    const text = await runCli(['audit', 'history', '--message', M1], dataDir);
    expect([text.code, text.stderr]).toEqual([0, '']);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(7);
    expect(lines[1]).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  messaging  MessageAccepted +message-${M1}  to ${C1}, .*text "Your order #42 has shipped and arrives t…".*  \\[request req-${M1}\\]$`));
    expect(lines[3]).toMatch(new RegExp(`MessageReceived +message-${R1}  from ${C1}, to ${LINKED}, session ${S}, network id 3EB0R01, text "thanks!"  \\[request chat-inbound:${R1}\\]$`));
    expect(lines[5]).toMatch(/MessageRead .*\[request req-\S+; caused by chat-receipt:MessageRead:3EB0M01\]$/);
    expect(lines[6]).toMatch(new RegExp(`^6 facts of message ${M1} \\(\\d+ events scanned\\)\\.$`));
  });

  it('shows a session, a contact and an account, each with only its own facts', async () => {
    expect(shape(await history('--session', S))).toEqual([
      `SessionCreated ${S}`, `SessionSlotReserved ${A}`, `SessionConnected ${S}`,
      `MessageAccepted ${M1}`, `MessageSent ${M1}`, `MessageReceived ${R1}`, `MessageAccepted ${M2}`, `MessageSent ${M2}`, `MessageDelivered ${M1}`,
      `MessageRead ${M1}`, `MessageReceived ${R2}`, `MessageAccepted ${M3}`, `MessageSent ${M3}`, `MessageReceived ${R3}`,
    ]);
    // A contact across accounts: what went to and came from the number, nothing of another contact.
    expect(shape(await history('--contact', C1))).toEqual([
      `MessageAccepted ${M1}`, `MessageSent ${M1}`, `MessageReceived ${R1}`, `MessageDelivered ${M1}`, `MessageRead ${M1}`,
      `MessageAccepted ${M3}`, `MessageSent ${M3}`, `MessageReceived ${R3}`, `MessageAccepted ${MB}`, `MessageSent ${MB}`,
    ]);
    const account = await history('--account', A);
    expect(account).toHaveLength(19);
    expect(account.some((f) => f.stream.includes(B) || f.stream.includes(MB))).toBe(false);
    const keyIssued = account.find((f) => f.type === 'ApiKeyIssued')!;
    expect(keyIssued.data).not.toHaveProperty('keyHash');
    expect(keyIssued.summary).toBe('key key_01JD8Z5X0A1B2C3D4E5F6G7H8J, scopes api');
    const text = await runCli(['audit', 'history', '--account', A], dataDir);
    expect(text.stdout).not.toContain('a'.repeat(64));
    expect(text.stdout).not.toContain('f'.repeat(64));
  });

  it('keeps to --from and --to', async () => {
    const later = await history('--account', A, '--from', midway);
    expect(later[0]).toMatchObject({ type: 'MessageReceived', stream: messageStream(R1) });
    expect(later).toHaveLength(19 - 8);
    const earlier = await history('--message', M1, '--to', midway);
    expect(shape(earlier)).toEqual([`DailyQuotaReserved ${A}-${DAY}`, `MessageAccepted ${M1}`, `MessageSent ${M1}`]);
  });

  it('says what it cannot show: an id no store knows (exit 1), a query that is not one (exit 2)', async () => {
    const unknown = await runCli(['audit', 'history', '--message', id('ZZZ')], dataDir);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(new RegExp(`^switchboard: no message ${id('ZZZ')} in the messaging store \\(.*messaging/events\\.sqlite\\)\\n$`));
    const two = await runCli(['audit', 'history', '--message', M1, '--session', S], dataDir);
    expect([two.code, two.stderr]).toEqual([2, 'switchboard: give one of --message <id>, --session <id>, --account <id> or --contact <phone>\n']);
    const badTime = await runCli(['audit', 'history', '--account', A, '--from', 'yesterday'], dataDir);
    expect(badTime.code).toBe(2);
    expect(badTime.stderr).toContain('--from: must be an ISO 8601 UTC time');
  });
});
