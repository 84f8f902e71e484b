import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteCheckpointStore, SqliteEventStore, openEventStore, type CheckpointStore, type EventStore } from '../src/index.js';

let directory: string;
beforeEach(() => {
  directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-eventstore-checkpoints-'));
});
afterEach(() => fs.rmSync(directory, { recursive: true, force: true }));

/** A projection that counts sessions and stores its checkpoint after each event. */
async function runProjection(store: EventStore, checkpoints: CheckpointStore, stopAfter: number): Promise<string[]> {
  const applied: string[] = [];
  const subscription = store.subscribe({ category: 'session', from: await checkpoints.load('session-list') });
  for await (const batch of subscription) {
    for (const event of batch) {
      applied.push(event.stream);
      await checkpoints.save('session-list', event.position);
      if (applied.length === stopAfter) return applied;
    }
  }
  return applied;
}

describe('SqliteCheckpointStore', () => {
  it('resumes a projection after a restart where it stopped', async () => {
    const file = path.join(directory, 'sessions.sqlite');
    const store = new SqliteEventStore(file);
    for (const id of ['ses_1', 'ses_2', 'ses_3']) {
      await store.append(`session-${id}`, [{ type: 'SessionCreated', data: { id } }], { expectedRevision: 'no_stream' });
    }
    const checkpoints = SqliteCheckpointStore.open(file);
    expect(await checkpoints.load('session-list')).toBe('start');
    expect(await runProjection(store, checkpoints, 2)).toEqual(['session-ses_1', 'session-ses_2']);
    await checkpoints.close();

    const restarted = SqliteCheckpointStore.open(file);
    await store.append('session-ses_4', [{ type: 'SessionCreated', data: {} }], { expectedRevision: 'no_stream' });
    expect(await runProjection(store, restarted, 2)).toEqual(['session-ses_3', 'session-ses_4']);
    await restarted.close();
    await store.close();
  });

  it('stores the checkpoint in the same transaction as the read model it shares a database with', () => {
    const readModel = new DatabaseSync(path.join(directory, 'read-model.sqlite'));
    readModel.exec('CREATE TABLE sessions (id TEXT PRIMARY KEY)');
    const checkpoints = SqliteCheckpointStore.fromDatabase(readModel);

    readModel.exec('BEGIN');
    readModel.prepare('INSERT INTO sessions (id) VALUES (?)').run('ses_1');
    checkpoints.saveSync('session-list', 7n);
    readModel.exec('ROLLBACK');
    expect(checkpoints.loadSync('session-list')).toBe('start');

    readModel.exec('BEGIN');
    checkpoints.saveSync('session-list', 7n);
    readModel.exec('COMMIT');
    expect(checkpoints.loadSync('session-list')).toBe(7n);
    readModel.close();
  });
});

describe('openEventStore', () => {
  it('opens the embedded SQLite store, creating its folder, when no URL is given', async () => {
    const store = openEventStore({ url: '', sqlitePath: path.join(directory, 'data/quota.sqlite') });
    expect(store).toBeInstanceOf(SqliteEventStore);
    await store.append('account-acc_1', [{ type: 'AccountOpened', data: {} }], { expectedRevision: 'no_stream' });
    expect(fs.existsSync(path.join(directory, 'data/quota.sqlite'))).toBe(true);
    await store.close();
  });

  it('refuses a URL that is neither a PostgreSQL nor a KurrentDB connection string', () => {
    expect(() => openEventStore({ url: 'mysql://db/events' })).toThrow(/postgres:\/\/.*kurrentdb:\/\//);
    expect(() => openEventStore({})).toThrow(/sqlitePath/);
  });
});
