export * from './event-store.js';
export type { CheckpointStore } from './checkpoint-store.js';
export { CATCH_UP_PAGE_SIZE } from './polling-subscription.js';
export { EVENT_STORE_URL_FORMS, isEventStoreServerUrl, openEventStore, type OpenEventStoreOptions } from './open-event-store.js';
export { SqliteEventStore, type SqliteEventStoreOptions } from './sqlite/sqlite-event-store.js';
export { SqliteCheckpointStore } from './sqlite/sqlite-checkpoint-store.js';
export { KurrentDbEventStore } from './kurrentdb/kurrentdb-event-store.js';
export { PostgresEventStore, type PostgresEventStoreOptions } from './postgres/postgres-event-store.js';
export { inImmediateTransaction, inImmediateTransactionWhenFree, inReadTransaction, openSqliteDatabase, type SqliteTuning } from './sqlite/sqlite-database.js';
export { TurnBatchedWrites } from './sqlite/turn-batched-writes.js';
export { ensurePrivateDir, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';
export { canonicalJson } from './canonical-json.js';
export { CHAIN_KEYS, GENESIS_HASH, chainEvents, chainHeadFrom, eventHash, type HashedEvent } from './hash-chain.js';
export {
  ChainVerifier, StreamChainCheck, verifyStream, type ChainFinding, type ChainFindingKind, type StreamChainSummary,
} from './chain-verification.js';
