export { adminUrl, createTestDatabase, onDatabase, postgresSkipReason } from './postgres-test-database.js';
export type { TestDatabase } from './postgres-test-database.js';
