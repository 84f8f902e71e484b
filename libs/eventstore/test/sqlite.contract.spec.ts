import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';
import { SqliteEventStore } from '../src/index.js';
import { eventStoreContract } from './event-store-contract.js';

const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-eventstore-contract-'));
const file = path.join(directory, 'events.sqlite');
afterAll(() => fs.rmSync(directory, { recursive: true, force: true }));

eventStoreContract('SQLite contract', () => ({
  connect: async () => new SqliteEventStore(file),
}));
