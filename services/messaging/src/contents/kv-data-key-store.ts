import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import type { DataKeyStore, StoredDataKey } from './data-key-store.js';

/** The bucket every messaging replica keeps the accounts' wrapped data keys in (distributed mode). */
export const DATA_KEYS_BUCKET = 'sb_messaging_data_keys';

/** A KV entry: the wrapped key as base64, with its id and time. */
interface Entry {
  keyId: string;
  wrapped: string;
  createdAt: string;
}

/**
 * `DataKeyStore` on a JetStream KV bucket (history 1, file storage), key = the account id. A
 * destroyed key's message is erased in place (JetStream overwrites it with random bytes, the
 * `erase` of a message delete) and the account's subject purged, so no copy is left in the stream.
 * The connection is the caller's: `close()` leaves it open.
 */
export class KvDataKeyStore implements DataKeyStore {
  private constructor(
    private readonly kv: KV,
    private readonly jsm: JetStreamManager,
    private readonly bucket: string,
  ) {}

  /** Creates the bucket or opens it (replicas starting together agree on one). */
  static async open(connection: NatsConnection, bucket = DATA_KEYS_BUCKET): Promise<KvDataKeyStore> {
    const kvm = new Kvm(connection);
    const options = { history: 1, storage: StorageType.File, description: 'Switchboard messaging data keys (wrapped)' };
    let kv: KV;
    try {
      kv = await kvm.create(bucket, options).catch(() => kvm.create(bucket, options));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`JetStream KV bucket ${bucket} could not be opened (the distributed mode needs NATS with JetStream): ${reason}`, { cause: error });
    }
    return new KvDataKeyStore(kv, await jetstreamManager(connection), bucket);
  }

  async current(accountId: string): Promise<StoredDataKey | undefined> {
    const entry = await this.kv.get(accountToken(accountId));
    if (entry?.operation !== 'PUT') return undefined;
    const { keyId, wrapped, createdAt } = entry.json<Entry>();
    return { accountId, keyId, wrapped: Buffer.from(wrapped, 'base64'), createdAt };
  }

  async create(key: StoredDataKey): Promise<StoredDataKey> {
    const entry: Entry = { keyId: key.keyId, wrapped: Buffer.from(key.wrapped).toString('base64'), createdAt: key.createdAt };
    try {
      await this.kv.create(accountToken(key.accountId), JSON.stringify(entry));
      return key;
    } catch (error) {
      // Another replica created the account's key first: that one is the account's.
      const winner = await this.current(key.accountId);
      if (winner === undefined) throw error;
      return winner;
    }
  }

  async destroy(accountId: string, keyId: string): Promise<boolean> {
    const entry = await this.kv.get(accountToken(accountId));
    if (entry?.operation !== 'PUT' || entry.json<Entry>().keyId !== keyId) return false;
    try {
      await this.jsm.streams.deleteMessage(`KV_${this.bucket}`, entry.revision, true);
    } catch (error) {
      // Another replica erased it a moment ago (both met the same erasure): it is gone either way.
      if ((await this.current(accountId))?.keyId !== keyId) return false;
      throw error;
    }
    await this.jsm.streams.purge(`KV_${this.bucket}`, { filter: `$KV.${this.bucket}.${accountToken(accountId)}` });
    return true;
  }

  async close(): Promise<void> {}
}

/** Account ids (`acc_` + ULID) are valid KV key tokens; anything else is refused. */
function accountToken(accountId: string): string {
  if (!/^acc_[0-9A-Z]{26}$/.test(accountId)) throw new Error(`not an account id: ${JSON.stringify(accountId)}`);
  return accountId;
}
