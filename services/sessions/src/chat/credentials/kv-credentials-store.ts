import { jetstreamManager, StorageType } from '@nats-io/jetstream';
import type { JetStreamManager } from '@nats-io/jetstream';
import type { KV } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { SecretCipher, SecretDecryptionError } from '@switchboard/service-kit';
import { encodedKvToken, kvToken, openKvBucket } from '../../nats-kv.js';
import { credentialsAssociatedData as associatedData, type CredentialsRow, type CredentialsStore } from './credentials-store.js';

/** The bucket every sessions replica keeps chat credentials in (distributed mode). */
export const CREDENTIALS_BUCKET = 'sb_chat_credentials';

/** A value sealed by the first replica to open the bucket: a replica under another key is refused at start. */
const KEY_CHECK = 'key-check';
const KEY_CHECK_AAD = 'switchboard chat-credentials bucket key check';

export interface KvCredentialsStoreOptions {
  /** `SWITCHBOARD_SECRET_KEY`, 32 bytes. */
  key: Buffer;
  /** Default `sb_chat_credentials`; tests use their own. */
  bucket?: string;
}

/**
 * `CredentialsStore` on a JetStream KV bucket that every sessions replica reads, so a session's
 * connection can move to another replica with its credentials. Key `<sessionId>.<kind>.<keyId>`,
 * kind and key id encoded to the KV key alphabet (Signal ids hold `:` and `@`); values sealed like
 * SQLite's (AES-256-GCM, same associated data). History 1, file storage: a value's previous
 * versions are not kept. The connection is the caller's: `close()` leaves it open.
 */
export class KvCredentialsStore implements CredentialsStore {
  readonly #kv: KV;
  readonly #jsm: JetStreamManager;
  readonly #cipher: SecretCipher;
  readonly #bucket: string;

  private constructor(kv: KV, jsm: JetStreamManager, cipher: SecretCipher, bucket: string) {
    this.#kv = kv;
    this.#jsm = jsm;
    this.#cipher = cipher;
    this.#bucket = bucket;
  }

  /** Creates the bucket or opens it (replicas starting together agree), then checks the key against it. */
  static async open(connection: NatsConnection, options: KvCredentialsStoreOptions): Promise<KvCredentialsStore> {
    const bucket = options.bucket ?? CREDENTIALS_BUCKET;
    const cipher = new SecretCipher(options.key);
    const kv = await openKvBucket(connection, bucket, { history: 1, storage: StorageType.File, description: 'Switchboard chat credentials (sealed)' });
    await assertKeyOfBucket(kv, cipher, bucket);
    return new KvCredentialsStore(kv, await jetstreamManager(connection), cipher, bucket);
  }

  async read(sessionId: string, kind: string, keyId: string): Promise<Buffer | undefined> {
    const entry = await this.#kv.get(entryKey(sessionId, kind, keyId));
    return entry?.operation === 'PUT' ? this.#cipher.open(entry.value, associatedData(sessionId, kind, keyId)) : undefined;
  }

  /**
   * KV has no multi-key transaction (nats-server 2.9 has no atomic batch either): each row is its
   * own put or delete, published in order on one connection and each durable once acknowledged. A
   * crash in between can leave some rows of a multi-row write applied and others not; this
   * resolves only when every row was acknowledged, and rejects otherwise (Baileys then retries its
   * key transaction, and rewriting a row is harmless).
   */
  async write(sessionId: string, rows: readonly CredentialsRow[]): Promise<void> {
    // Sealed and published in the caller's turn, so writes keep the order they were made in.
    const pending = rows.map(({ kind, keyId, value }) => {
      const key = entryKey(sessionId, kind, keyId);
      return value === null ? this.#kv.delete(key) : this.#kv.put(key, this.#cipher.seal(value, associatedData(sessionId, kind, keyId)));
    });
    await Promise.all(pending);
  }

  /** Purges the session's subjects from the bucket's stream: values and delete markers, in one request. */
  async wipe(sessionId: string): Promise<void> {
    await this.#jsm.streams.purge(`KV_${this.#bucket}`, { filter: `$KV.${this.#bucket}.${kvToken(sessionId, 'session id')}.>` });
  }

  async rowCount(sessionId: string): Promise<number> {
    let rows = 0;
    for await (const _key of await this.#kv.keys(`${kvToken(sessionId, 'session id')}.>`)) rows += 1;
    return rows;
  }

  /** The connection stays open: it belongs to the caller. */
  async close(): Promise<void> {}
}

function entryKey(sessionId: string, kind: string, keyId: string): string {
  return `${kvToken(sessionId, 'session id')}.${encodedKvToken(kind)}.${encodedKvToken(keyId)}`;
}

/**
 * Opens the bucket's check value with `cipher`, or writes it when the bucket has none yet
 * (whichever replica's write lands first is the check). Starting under another key is refused
 * here, in one line, instead of every session failing to resume.
 */
async function assertKeyOfBucket(kv: KV, cipher: SecretCipher, bucket: string): Promise<void> {
  let check = await kv.get(KEY_CHECK);
  if (check?.operation !== 'PUT') {
    await kv.create(KEY_CHECK, cipher.seal(Buffer.from(KEY_CHECK_AAD), KEY_CHECK_AAD)).catch(() => undefined);
    check = await kv.get(KEY_CHECK);
    if (check?.operation !== 'PUT') throw new Error(`KV bucket ${bucket}: its key check could not be written`);
  }
  try {
    cipher.open(check.value, KEY_CHECK_AAD);
  } catch (error) {
    throw new SecretDecryptionError(`KV bucket ${bucket} holds chat credentials sealed with another key`, { cause: error });
  }
}
