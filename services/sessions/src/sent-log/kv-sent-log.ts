import type { KV } from '@nats-io/kv';
import { StorageType } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { kvToken, openKvBucket } from '../nats-kv.js';
import { SENT_LOG_RETENTION_MS } from './sent-log.js';
import type { SentLog, SentRecord } from './sent-log.js';

/** The bucket every sessions replica records acknowledged sends in (distributed mode). */
export const SENT_LOG_BUCKET = 'sb_sessions_sent';

export interface KvSentLogOptions {
  /** Default `sb_sessions_sent`; tests use their own. */
  bucket?: string;
  /** How long the server keeps a record (the bucket's max age, set when it is created); default 24 h. */
  retentionMs?: number;
}

/**
 * `SentLog` on a JetStream KV bucket that every sessions replica reads, so a redelivery finds the
 * record whichever replica sent the message. Key `<accountId>.<sessionId>.<messageId>`, value the
 * record as JSON (ids and times, nothing secret); file storage, history 1. `record()` resolves
 * once the server acknowledged the put, so the record outlives this process. The connection is
 * the caller's.
 */
export class KvSentLog implements SentLog {
  private constructor(private readonly kv: KV) {}

  static async open(connection: NatsConnection, options: KvSentLogOptions = {}): Promise<KvSentLog> {
    const kv = await openKvBucket(connection, options.bucket ?? SENT_LOG_BUCKET, {
      history: 1,
      storage: StorageType.File,
      ttl: options.retentionMs ?? SENT_LOG_RETENTION_MS,
      description: 'Switchboard sent log: messages the chat network acknowledged',
    });
    return new KvSentLog(kv);
  }

  async record(sent: SentRecord): Promise<void> {
    const { accountId, sessionId, messageId, networkMessageId, sentAt, from } = sent;
    await this.kv.put(recordKey(accountId, sessionId, messageId), JSON.stringify({ accountId, sessionId, messageId, networkMessageId, sentAt, ...(from ? { from } : {}) }));
  }

  async find(accountId: string, sessionId: string, messageId: string): Promise<SentRecord | undefined> {
    const entry = await this.kv.get(recordKey(accountId, sessionId, messageId));
    if (entry?.operation !== 'PUT') return undefined;
    const stored = entry.json<Partial<SentRecord>>();
    if (typeof stored.networkMessageId !== 'string' || typeof stored.sentAt !== 'string') return undefined;
    return { accountId, sessionId, messageId, networkMessageId: stored.networkMessageId, sentAt: stored.sentAt, ...(typeof stored.from === 'string' ? { from: stored.from } : {}) };
  }

  /** 0: the server drops records older than the bucket's max age by itself (see `retentionMs`). */
  async forgetBefore(_cutoff: Date): Promise<number> {
    return 0;
  }

  /** The connection stays open: it belongs to the caller. */
  async close(): Promise<void> {}
}

function recordKey(accountId: string, sessionId: string, messageId: string): string {
  return `${kvToken(accountId, 'account id')}.${kvToken(sessionId, 'session id')}.${kvToken(messageId, 'message id')}`;
}
