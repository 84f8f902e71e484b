import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '@switchboard/telemetry';
import type { SessionListQueries } from '../projections/session-list/queries.js';
import type { SessionOwnership } from '../replicas/ownership.js';
import type { Session } from '../session/state.js';
import type { ChatDriver } from '../chat/index.js';
import { ConnectionManager } from './connection-manager.js';
import type { SessionSlots } from './quota-slots.js';
import { ConnectionRegistry } from './registry.js';
import type { SessionCommands } from './session-commands.js';

const SESSION = 'ses_01M8FF3AQRGF5141EPM37QCQ4J';
const ACCOUNT = 'acc_01M8FF3AQRGF5141EPM37QCQ4J';
const logger = createLogger({ service: 'sessions', level: 'silent' });

/** A session stream read back: pending (pairing) or connected on record. */
const onRecord = (status: 'pending' | 'connected') => ({ status, sessionId: SESSION, accountId: ACCOUNT }) as unknown as Session;

/** A registry ending SESSION until `finish()` (the logout and the recording still to come), with a manager on it. */
function setUp(status: 'pending' | 'connected', driver?: () => ChatDriver) {
  let finish: () => void = () => undefined;
  const recordedEnd = new Promise<void>((resolve) => (finish = resolve));
  const executed: string[] = [];
  /** Connections opened (a resume's turn opens one). */
  const opened: string[] = [];
  const commands = {
    load: vi.fn(async () => onRecord(status)),
    execute: vi.fn(async (_sessionId: string, _accountId: string, command: { type: string }) => {
      executed.push(command.type);
      if (command.type === 'DeleteSession') await recordedEnd;
      return { events: [] };
    }),
  } as unknown as SessionCommands;
  const slots = { release: async () => undefined } as unknown as SessionSlots;
  const registry = new ConnectionRegistry({
    commands, slots, logger, logoutTimeoutMs: 1_000,
    forwarder: {} as never, activity: { forget: () => undefined } as never, reachability: {} as never,
    createDriver: (sessionId) => {
      opened.push(sessionId);
      if (driver) return driver();
      throw new Error('no chat network here');
    },
    wipeCredentials: () => undefined,
    ended: async () => undefined,
    holdsHere: () => true,
    connectedOnRecord: () => status === 'connected',
  });
  const manager = new ConnectionManager({
    registry, commands, slots, logger, firstQrTimeoutMs: 1_000, resumeConcurrency: 1,
    queries: { statusOf: () => status } as unknown as SessionListQueries,
    ownership: { ownerOf: () => 'self' } as unknown as SessionOwnership,
  });
  return { registry, manager, executed, opened, finish };
}

describe('a session this process is ending is not taken up again', () => {
  it('is told as ending from the start of its end to the recording of it', async () => {
    const { registry, finish } = setUp('pending');
    const ending = registry.end({ sessionId: SESSION, accountId: ACCOUNT }, () => [{ type: 'DeleteSession', loggedOut: false }]);
    expect(registry.isEnding(SESSION)).toBe(true);
    finish();
    await ending;
    expect(registry.isEnding(SESSION)).toBe(false);
  });

  it.each(['pending', 'connected'] as const)('a %s one is neither timed out nor resumed while its deletion is recorded', async (status) => {
    const { registry, manager, executed, opened, finish } = setUp(status);
    const deleting = registry.end({ sessionId: SESSION, accountId: ACCOUNT }, () => [{ type: 'DeleteSession', loggedOut: false }]);
    // The replica's reconcile loop finds the session's record naming this replica and no connection here.
    await manager.adopt(SESSION, ACCOUNT);
    // A queued resume takes its turn on a later tick.
    for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setImmediate(resolve));
    finish();
    await deleting;
    expect(executed).toEqual(['DeleteSession']);
    expect(opened).toEqual([]);
  });

  it('a stale pending one that nobody is ending still times out', async () => {
    const { manager, executed } = setUp('pending');
    await manager.adopt(SESSION, ACCOUNT);
    expect(executed).toEqual(['MarkTimedOut']);
  });

  it('a connected one that nobody is ending still resumes', async () => {
    const { manager, opened } = setUp('connected');
    await manager.adopt(SESSION, ACCOUNT);
    for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setImmediate(resolve));
    expect(opened).toEqual([SESSION]);
  });

  it('one its own driver reported ended (logged out) is not resumed while that driver stops', async () => {
    let stopped: () => void = () => undefined;
    const stopping = new Promise<void>((resolve) => (stopped = resolve));
    // A driver whose stop takes a while (received messages still being told, saves being written).
    const slowToStop = () => Object.assign(new EventEmitter(), { stop: () => stopping }) as unknown as ChatDriver;
    const { registry, manager, executed, opened, finish } = setUp('connected', slowToStop);
    const connection = registry.open(SESSION, ACCOUNT, 'linked');
    (connection.driver as unknown as EventEmitter).emit('disconnected', { reason: 'logged_out', willReconnect: false });
    for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setImmediate(resolve));
    await manager.adopt(SESSION, ACCOUNT);
    for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setImmediate(resolve));
    stopped();
    finish();
    await connection.idle();
    expect(opened).toEqual([SESSION]);
    expect(executed).toEqual(['MarkDisconnected']);
  });
});
