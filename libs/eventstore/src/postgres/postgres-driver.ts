import type * as Pg from 'pg';
import { lazyModule } from '../lazy-module.js';

/** `pg` (node-postgres), loaded the first time a PostgreSQL store is created. */
export const pg = lazyModule<typeof Pg>('pg');

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
