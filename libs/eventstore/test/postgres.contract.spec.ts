import { PostgresEventStore } from '../src/index.js';
import { eventStoreContract } from './event-store-contract.js';
import { usePostgresDatabase } from './postgres-target.js';

const database = await usePostgresDatabase();

// Every connect() is a store with a pool of its own, as another process would have.
eventStoreContract(
  'PostgreSQL contract',
  () => ({ connect: async () => new PostgresEventStore(database.url(), { schema: 'contract' }) }),
  database.skipReason ? { skipReason: database.skipReason } : {},
);
