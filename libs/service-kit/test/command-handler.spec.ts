import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventStore } from '@switchboard/eventstore';
import type { EventStore } from '@switchboard/eventstore';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeCommand } from '../src/command-handler.js';

interface Counted { type: 'Counted'; version: 1; data: { n: number } }
const fold = {
  initial: 0,
  evolve: (state: number, event: Counted) => state + event.data.n,
  parse: (raw: { type: string; version: number; data: unknown }) => raw as Counted,
};
const metadata = { accountId: 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F', correlationId: 'c', causationId: 'c', occurredAt: '2026-11-21T00:00:00.000Z' };

let dir: string;
let store: EventStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'sb-kit-'));
  store = openEventStore({ sqlitePath: join(dir, 'events.sqlite') });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('executeCommand', () => {
  it('reports the store position of what it appended, so a handler can wait for its read model', async () => {
    await store.append('other-1', [{ type: 'Counted', data: { n: 1 } }], { expectedRevision: 'any' });
    const result = await executeCommand(store, 'count-1', fold, () => [{ type: 'Counted', version: 1, data: { n: 2 } }], metadata);
    const [recorded] = await store.readStream('count-1');
    expect(result.state).toBe(2);
    expect(result.position).toBe(recorded?.position);
    expect(result.position).toBeGreaterThan(1n);
  });

  it('reports no position when the command changed nothing', async () => {
    const result = await executeCommand(store, 'count-2', fold, () => [], metadata);
    expect(result).toEqual({ state: 0, events: [] });
  });
});
