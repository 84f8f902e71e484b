import { join } from 'node:path';
import type { KV } from '@nats-io/kv';
import { StorageType } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { kvToken, openKvBucket } from '../nats-kv.js';
import { contactHash, MESSAGED_RETENTION_MS } from './messaged-contacts.js';
import type { MessagedContacts } from './messaged-contacts.js';
import { SqliteMessagedContacts } from './sqlite-messaged-contacts.js';

/** The bucket every sessions replica records messaged contacts in (distributed mode). */
export const MESSAGED_CONTACTS_BUCKET = 'sb_sessions_contacts';

/**
 * `MessagedContacts` on a JetStream KV bucket every replica reads, so whichever replica holds the
 * session next knows whom it messaged. Keys `<accountId>.<sessionId>.<contact hash>` (value
 * `{seenAt}`) and `<accountId>.<sessionId>.pacing` (`{lastNewContactAt}`); the bucket's
 * max age drops contacts not messaged for the retention.
 */
export class KvMessagedContacts implements MessagedContacts {
  private constructor(private readonly kv: KV) {}

  static async open(connection: NatsConnection, bucket = MESSAGED_CONTACTS_BUCKET): Promise<KvMessagedContacts> {
    const kv = await openKvBucket(connection, bucket, {
      history: 1,
      storage: StorageType.File,
      ttl: MESSAGED_RETENTION_MS,
      description: 'Switchboard sessions: contacts each session has messaged (hashed), for send pacing',
    });
    return new KvMessagedContacts(kv);
  }

  async seen(accountId: string, sessionId: string, phone: string): Promise<number | undefined> {
    const entry = await this.kv.get(key(accountId, sessionId, contactHash(phone)));
    if (entry?.operation !== 'PUT') return undefined;
    const { seenAt } = entry.json<{ seenAt?: unknown }>();
    return typeof seenAt === 'number' ? seenAt : undefined;
  }

  async remember(accountId: string, sessionId: string, phone: string, at: number, newContact: boolean): Promise<void> {
    await this.kv.put(key(accountId, sessionId, contactHash(phone)), JSON.stringify({ seenAt: at }));
    if (newContact) await this.kv.put(key(accountId, sessionId, 'pacing'), JSON.stringify({ lastNewContactAt: at }));
  }

  async lastNewContactAt(accountId: string, sessionId: string): Promise<number | undefined> {
    const entry = await this.kv.get(key(accountId, sessionId, 'pacing'));
    if (entry?.operation !== 'PUT') return undefined;
    const { lastNewContactAt } = entry.json<{ lastNewContactAt?: unknown }>();
    return typeof lastNewContactAt === 'number' ? lastNewContactAt : undefined;
  }

  /** The connection belongs to the caller. */
  async close(): Promise<void> {}
}

function key(accountId: string, sessionId: string, last: string): string {
  return `${kvToken(accountId, 'account id')}.${kvToken(sessionId, 'session id')}.${last}`;
}

/** The mode's record: SQLite under `dataDir` without NATS, the shared bucket on `connection` with it. */
export async function openMessagedContacts(dataDir: string, connection: NatsConnection | undefined): Promise<MessagedContacts> {
  return connection ? KvMessagedContacts.open(connection) : new SqliteMessagedContacts(join(dataDir, 'messaged-contacts.sqlite'));
}
