import { createTestDatabase, onDatabase, postgresSkipReason, type TestDatabase } from '@switchboard/eventstore/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openServiceEventStore } from '../src/service-store.js';
import { tempDir } from './support.js';

const skipReason = await postgresSkipReason();
const title = skipReason ? `a service's event store on PostgreSQL (skipped: ${skipReason})` : "a service's event store on PostgreSQL";

describe.skipIf(skipReason !== undefined)(title, () => {
  let database: TestDatabase;
  const dir = tempDir();
  beforeAll(async () => {
    database = await createTestDatabase('sb_service_kit_test');
  });
  afterAll(async () => {
    await database?.drop();
    dir.remove();
  });

  it('keeps each service in a schema named after it, in the one database the URL names', async () => {
    const config = { dataDir: dir.path, eventStoreUrl: database.url };
    const [quota, sessions] = [openServiceEventStore('quota', config), openServiceEventStore('sessions', config)];
    await quota.append('account-acc_1', [{ type: 'AccountOpened', data: {} }], { expectedRevision: 'no_stream' });
    await sessions.append('account-acc_1', [{ type: 'Unrelated', data: {} }], { expectedRevision: 'no_stream' });

    expect((await quota.readStream('account-acc_1')).map((event) => event.type)).toEqual(['AccountOpened']);
    const tables = await onDatabase(database.url, async (client) => (await client.query<{ name: string }>(
      "SELECT table_schema || '.' || table_name AS name FROM information_schema.tables WHERE table_name = 'events' ORDER BY 1",
    )).rows.map((row) => row.name));
    expect(tables).toEqual(['quota.events', 'sessions.events']);
    await Promise.all([quota.close(), sessions.close()]);
  });
});
