import type { Pool } from 'pg';
import { withConnection } from './postgres-driver.js';

/**
 * Where one store's log lives: every table in the service's own schema (`sessions.events`, …),
 * so services sharing a database never see each other's streams.
 */
export interface EventLog {
  /** The quoted schema, `"sessions"`. */
  schema: string;
  /** The quoted events table, `"sessions".events`. */
  events: string;
  /** The quoted sequence that positions are drawn from. */
  positions: string;
  /** The LISTEN/NOTIFY channel appends to this log are announced on. */
  channel: string;
}

/** A schema we create and name in SQL and in a NOTIFY channel: lowercase, like the services. */
const schemaNamePattern = /^[a-z_][a-z0-9_]{0,47}$/;

export function eventLogIn(schema: string): EventLog {
  if (!schemaNamePattern.test(schema)) {
    throw new TypeError(`PostgreSQL event store schema must match ${schemaNamePattern} (got "${schema}")`);
  }
  const quoted = `"${schema}"`;
  return { schema: quoted, events: `${quoted}.events`, positions: `${quoted}.event_positions`, channel: `eventstore_${schema}` };
}

export const uniqueRevisionConstraint = 'events_stream_revision_unique';

// Data and metadata are `json`, not `jsonb`: json keeps the text as written, so objects read back
// with their keys in the order they were appended (as from SQLite) and any string JSON.stringify
// writes (\u0000, lone surrogates) is accepted; nothing queries inside them.
// UNIQUE (stream, revision) is the last line of defence behind the append lock: even a writer
// that skipped it (an older version, a manual insert) can never win a revision twice.
// Positions come from a sequence, so a rolled-back append leaves a gap and a position is never reused.
function schemaDdl(log: EventLog): string {
  return `
CREATE SCHEMA IF NOT EXISTS ${log.schema};
CREATE TABLE IF NOT EXISTS ${log.events} (
  position    bigint      PRIMARY KEY,
  id          text        NOT NULL CONSTRAINT events_id_unique UNIQUE,
  stream      text        NOT NULL,
  category    text        NOT NULL,
  revision    bigint      NOT NULL,
  type        text        NOT NULL,
  data        json        NOT NULL,
  metadata    json        NOT NULL,
  recorded_at timestamptz NOT NULL DEFAULT statement_timestamp(),
  CONSTRAINT ${uniqueRevisionConstraint} UNIQUE (stream, revision)
);
CREATE INDEX IF NOT EXISTS events_by_category ON ${log.events} (category, position);
CREATE SEQUENCE IF NOT EXISTS ${log.positions} OWNED BY ${log.events}.position;
`;
}

// Advisory lock keys are one bigint per database: ours are 'SBEV' in the high 32 bits, and the
// events table's oid (or 0, for creating schemas) in the low ones, so two logs never share a lock.
const lockNamespace = 0x5342_4556n << 32n;
const schemaCreationLock = lockNamespace;

/**
 * Creates the schema, table, index and sequence if missing, and returns the key of the log's append
 * lock. Processes starting at once queue on an advisory lock: concurrent `CREATE … IF NOT EXISTS`
 * can still fail on the catalogs' unique indexes. DDL is transactional, so a table that exists
 * comes with everything else, and the common start (it exists) takes no lock at all.
 */
export async function ensureEventLog(pool: Pool, log: EventLog): Promise<bigint> {
  const existing = await tableOid(pool, log);
  if (existing !== undefined) return lockNamespace | existing;
  await withConnection(pool, async (client) => {
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${schemaCreationLock})`);
    await client.query(schemaDdl(log));
    await client.query('COMMIT');
  });
  const created = await tableOid(pool, log);
  if (created === undefined) throw new Error(`${log.events} is missing right after it was created`);
  return lockNamespace | created;
}

async function tableOid(pool: Pool, log: EventLog): Promise<bigint | undefined> {
  const { rows } = await pool.query<{ oid: string | null }>('SELECT to_regclass($1)::oid::bigint AS oid', [log.events]);
  const oid = rows[0]?.oid;
  return oid === null || oid === undefined ? undefined : BigInt(oid);
}
