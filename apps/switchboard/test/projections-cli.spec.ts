import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBus } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { PrivateNatsServer } from '@switchboard/bus/testing';
import { SqliteEventStore } from '@switchboard/eventstore';
import { MESSAGING_READ_MODELS } from '@switchboard/messaging';
import { serveProjectionRebuilds } from '@switchboard/service-kit';
import type { ProjectionRebuilds } from '@switchboard/service-kit';
import { SESSIONS_READ_MODELS } from '@switchboard/sessions';
import { createLogger } from '@switchboard/telemetry';
import { runCli as cli } from './support/cli.js';
import { keepReadModels, messageId, readModelRows, writeMessages, writeSession } from './support/read-model-data.js';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-rebuild-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

interface Rebuilt { service: string; where: string; projection: string; events: number; eventsPerSecond: number; position: string | null; rows: Record<string, number>; swapMs: number }
interface Report { ok: boolean; rebuilt: Rebuilt[]; failed: { service: string; where: string; projection: string; message: string }[]; skipped: { service: string; reason: string }[] }

describe('switchboard projections rebuild: what it refuses', () => {
  it.each([
    [['--service', 'billing'], 'switchboard: --service: one of sessions, messaging, events (got "billing")\n'],
    [['--projection', 'session-lists'], 'switchboard: --projection: one of session-list, message-status, message-history, webhooks (got "session-lists")\n'],
    [['--service', 'sessions', '--projection', 'message-status'], 'switchboard: --projection message-status is a read model of messaging, not of sessions\n'],
    [['--service', 'quota'], 'switchboard: --service quota: quota keeps no read models on disk: each quota process rebuilds its own in memory from the event store whenever it starts (restart it to rebuild them)\n'],
    [['session-list'], 'switchboard: "switchboard projections rebuild" takes 0 arguments, got 1; see switchboard --help\n'],
    [['--projections', 'webhooks'], expect.stringContaining("Unknown option '--projections'") as unknown as string],
  ])('%j: exit 2 with the reason, and nothing written', async (args, stderr) => {
    const dataDir = join(tempDir(), 'data');
    const run = await cli(['projections', 'rebuild', ...args], dataDir);
    expect(run).toEqual({ code: 2, stdout: '', stderr });
    expect(existsSync(dataDir)).toBe(false);
  });
});

describe('switchboard projections rebuild, embedded mode (the files under the data dir)', () => {
  it('rebuilds every read model while reads and writes go on against the live ones; the swapped-in ones hold the same rows, no event lost or doubled', async () => {
    const dataDir = tempDir();
    const sessions = new SqliteEventStore(join(dataDir, 'sessions', 'events.sqlite'));
    const messaging = new SqliteEventStore(join(dataDir, 'messaging', 'events.sqlite'));
    for (let i = 0; i < 20; i += 1) await writeSession(sessions, i);
    await writeMessages(messaging, 0, 3_000);
    // The running server's read models, kept by its own runners in this process.
    const liveSessions = await keepReadModels(sessions, SESSIONS_READ_MODELS, dataDir);
    const liveMessages = await keepReadModels(messaging, MESSAGING_READ_MODELS, dataDir);
    // A wrong row in the old generation (as a projection bug leaves behind): the rebuild puts it right.
    liveMessages.db.prepare("UPDATE message_status SET status = 'pending' WHERE message_id = ?").run(messageId(7));
    const status = liveMessages.db.prepare('SELECT status FROM message_status WHERE message_id = ?');
    const sessionCount = liveSessions.db.prepare('SELECT count(*) AS n FROM session_list');

    let done = false;
    const running = cli(['projections', 'rebuild', '--json'], dataDir).finally(() => (done = true));
    let reads = 0;
    let next = 3_000;
    while (!done) {
      // Every read answers, from the old rows or the new ones.
      expect(status.get(messageId(next % 3_000))).toBeDefined();
      expect(Number((sessionCount.get() as { n: number }).n)).toBeGreaterThanOrEqual(20);
      reads += 1;
      await writeMessages(messaging, next, next + 1);
      if (next % 10 === 0) await writeSession(sessions, 20 + next);
      next += 1;
      await sleep(5);
    }
    const run = await running;
    await writeMessages(messaging, next, next + 1);
    await liveSessions.caughtUp();
    await liveMessages.caughtUp();

    expect([run.code, run.stderr]).toEqual([0, '']);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.ok).toBe(true);
    expect(report.rebuilt.map((r) => [r.service, r.projection, r.where])).toEqual([
      ['sessions', 'session-list', 'local'], ['messaging', 'message-status', 'local'], ['messaging', 'message-history', 'local'],
    ]);
    expect(report.rebuilt[1]!.events).toBeGreaterThanOrEqual(12_000);
    expect(report.skipped).toEqual([{ service: 'events', reason: expect.stringContaining('no event store yet') as string }]);
    expect(reads).toBeGreaterThan(5);

    // The same rows a read model built from zero after the fact holds: nothing lost, nothing applied twice.
    const reference = tempDir();
    const refSessions = await keepReadModels(sessions, SESSIONS_READ_MODELS, reference);
    const refMessages = await keepReadModels(messaging, MESSAGING_READ_MODELS, reference);
    expect(readModelRows(liveSessions.db)).toEqual(readModelRows(refSessions.db));
    expect(readModelRows(liveMessages.db)).toEqual(readModelRows(refMessages.db));
    expect((status.get(messageId(7)) as { status: string }).status).toBe('read');
    expect(readdirSync(join(dataDir, 'messaging')).filter((f) => f.endsWith('.sqlite')).sort()).toEqual(['events.sqlite', 'read-models.sqlite']);
    for (const live of [liveSessions, liveMessages, refSessions, refMessages]) await live.stop();
    await sessions.close();
    await messaging.close();
  });

  it('prints each read model with its events, rows and rate, and the total rate', async () => {
    const dataDir = tempDir();
    const messaging = new SqliteEventStore(join(dataDir, 'messaging', 'events.sqlite'));
    await writeMessages(messaging, 0, 50);
    await messaging.close();
    const run = await cli(['projections', 'rebuild', '--service', 'messaging', '--projection', 'message-status'], dataDir);
    expect([run.code, run.stderr]).toEqual([0, '']);
    expect(run.stdout).toMatch(/^SERVICE +PROJECTION +WHERE +EVENTS +ROWS +SECONDS +EVENTS\/S +SWAP MS\nmessaging +message-status +local +200 +50 +[\d.]+ +[\d,]+ +[\d.]+\n\n/);
    expect(run.stdout).toMatch(/Rebuilt 1 read model from 200 events in [\d.]+ s: [\d,]+ events\/s\./);
  });
});

describe('switchboard projections rebuild, distributed mode (SWITCHBOARD_NATS_URL)', () => {
  let nats: PrivateNatsServer;
  let bus: Bus;
  const served: ProjectionRebuilds[] = [];

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    bus = await createBus({ name: 'rebuild-test-replicas', env: { SWITCHBOARD_NATS_URL: nats.url } });
  });
  afterAll(async () => {
    for (const s of served) await s.close();
    await bus?.close();
    await nats?.stop();
  });

  it('asks every replica over NATS to rebuild its own read model and reports each; a service nobody runs fails (exit 1)', async () => {
    const stores: SqliteEventStore[] = [];
    // Two sessions replicas, each with its read models on a disk of its own (a pod's emptyDir).
    for (const replica of ['sessions-0', 'sessions-1']) {
      const dataDir = tempDir();
      const store = new SqliteEventStore(join(dataDir, 'sessions', 'events.sqlite'));
      for (let i = 0; i < 5; i += 1) await writeSession(store, i);
      stores.push(store);
      served.push(await serveProjectionRebuilds({ bus, readModels: SESSIONS_READ_MODELS, store, config: { dataDir }, logger: createLogger({ service: 'test', level: 'silent' }), replica }));
    }
    // The CLI's own data dir is not used: each replica rebuilds where it runs.
    const cliDir = join(tempDir(), 'unused');
    const run = await cli(['projections', 'rebuild', '--json'], cliDir, { SWITCHBOARD_NATS_URL: nats.url });
    expect([run.code, run.stderr]).toEqual([1, '']);
    const report = JSON.parse(run.stdout) as Report;
    expect(report.rebuilt.map((r) => [r.where, r.projection, r.events, r.rows]).sort()).toEqual([
      ['sessions-0', 'session-list', 15, { session_list: 5 }], ['sessions-1', 'session-list', 15, { session_list: 5 }],
    ]);
    expect(report.failed).toEqual([
      { service: 'messaging', where: '-', projection: 'message-status', message: 'no messaging replica answered within 2 s; is the service running?' },
      { service: 'messaging', where: '-', projection: 'message-history', message: 'no messaging replica answered within 2 s; is the service running?' },
      { service: 'events', where: '-', projection: 'webhooks', message: 'no events replica answered within 2 s; is the service running?' },
    ]);
    expect(existsSync(cliDir)).toBe(false);

    const one = await cli(['projections', 'rebuild', '--service', 'sessions'], cliDir, { SWITCHBOARD_NATS_URL: nats.url });
    expect([one.code, one.stderr]).toEqual([0, '']);
    expect(one.stdout).toMatch(/\nsessions +session-list +sessions-0 +15 +5 /);
    expect(one.stdout).toContain('Rebuilt 2 read models from 30 events');
    for (const store of stores) await store.close();
  });
});
