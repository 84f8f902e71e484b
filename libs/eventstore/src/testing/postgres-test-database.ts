import { randomUUID } from 'node:crypto';
import pg from 'pg';

/**
 * The server PostgreSQL tests run on: `SWITCHBOARD_TEST_POSTGRES_URL`, else the local PostgreSQL
 * the development machines run (trust auth). Its user must be allowed to create databases.
 */
export const adminUrl = process.env['SWITCHBOARD_TEST_POSTGRES_URL']?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres';

/** Whether the server answers; the reason when it does not, so a suite can report itself skipped. */
export async function postgresSkipReason(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 3_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `no PostgreSQL at ${redacted(adminUrl)} (${error instanceof Error ? error.message : String(error)})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface TestDatabase {
  /** `postgres://…/<name>`: the admin URL pointing at this database. */
  url: string;
  /** Ends its remaining connections and drops it. */
  drop(): Promise<void>;
}

// Unquoted-identifier characters only, leaving room in PostgreSQL's 63 bytes for the random suffix.
const prefixPattern = /^[a-z_][a-z0-9_]{0,40}$/;

/** A database of its own (for a test file, an end-to-end run), named `<prefix>_<random>`. */
export async function createTestDatabase(prefix = 'sb_eventstore_test'): Promise<TestDatabase> {
  if (!prefixPattern.test(prefix)) throw new TypeError(`test database prefix must match ${prefixPattern} (got "${prefix}")`);
  const name = `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  await onDatabase(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      // WITH (FORCE) first ends the connections still open on it (a store a failed test left open).
      await onDatabase(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** Runs `work` on one connection of its own to `url` (to inspect or tamper with tables outside any store). */
export async function onDatabase<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

function redacted(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the configured URL';
  }
}
