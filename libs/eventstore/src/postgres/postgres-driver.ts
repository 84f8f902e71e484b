import { createRequire } from 'node:module';
import type * as Pg from 'pg';

type PgModule = typeof Pg;

const require = createRequire(import.meta.url);
let loaded: PgModule | undefined;

/**
 * `pg` (node-postgres), loaded the first time a PostgreSQL store is created (it is CommonJS, so
 * synchronously): a process on the embedded SQLite store never loads the driver.
 */
export function pg(): PgModule {
  loaded ??= require('pg') as PgModule;
  return loaded;
}

/** SQLSTATE 23505: a UNIQUE constraint refused a row; `constraint` names which. */
export function uniqueViolation(error: unknown): { constraint: string | undefined } | undefined {
  if (!(error instanceof pg().DatabaseError) || error.code !== '23505') return undefined;
  return { constraint: error.constraint };
}

/**
 * Runs `work` on one pooled connection. If it fails, whatever transaction it left open is rolled
 * back (outside one, ROLLBACK only warns); a connection that cannot even do that is dropped.
 */
export async function withConnection<T>(pool: Pg.Pool, work: (client: Pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    return await work(client);
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackFailed: unknown) => {
      broken = rollbackFailed instanceof Error ? rollbackFailed : new Error(String(rollbackFailed));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
