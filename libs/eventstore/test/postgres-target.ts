import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, postgresSkipReason, type TestDatabase } from '../src/testing/index.js';

/**
 * For a test file: whether PostgreSQL is reachable (else why not, for the suite's title), and a
 * database of the file's own, created before its tests and dropped after them.
 */
export async function usePostgresDatabase(): Promise<{ skipReason: string | undefined; url: () => string }> {
  const skipReason = await postgresSkipReason();
  let database: TestDatabase | undefined;
  if (!skipReason) {
    beforeAll(async () => {
      database = await createTestDatabase();
    });
    afterAll(async () => database?.drop());
  }
  return {
    skipReason,
    url: () => {
      if (!database) throw new Error('the test database is not created yet');
      return database.url;
    },
  };
}
