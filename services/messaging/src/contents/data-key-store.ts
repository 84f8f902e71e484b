/**
 * Glossary:
 * - data key: a random AES-256 key that seals one account's message contents (crypto-shredding).
 *   At most one is live per account; destroying it erases every content it sealed.
 * - wrapped key: a data key sealed under SWITCHBOARD_SECRET_KEY: the only form that is stored.
 */
export interface StoredDataKey {
  accountId: string;
  /** `dk_` + ULID: a key minted later (after an erasure) has a greater id. */
  keyId: string;
  /** The key sealed with the service's secret key, bound to the account and the key id. */
  wrapped: Uint8Array;
  createdAt: string;
}

/**
 * The port to where the messaging service keeps its data keys: a table of its own SQLite file in
 * the embedded mode (`SqliteDataKeyStore`), a JetStream KV bucket every replica reads in the
 * distributed mode (`KvDataKeyStore`). Not an event stream: a destroyed key has to be gone from
 * the disk, and a stored event cannot be removed without breaking its stream's hash chain.
 */
export interface DataKeyStore {
  /** The account's live key; undefined when it has none (never had one, or it was destroyed). */
  current(accountId: string): Promise<StoredDataKey | undefined>;
  /** Stores `key` as the account's live key unless another writer stored one first: the live key either way. */
  create(key: StoredDataKey): Promise<StoredDataKey>;
  /** Removes the account's key `keyId` (overwritten, not marked as removed); false when it was not the live key. */
  destroy(accountId: string, keyId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** What a wrapped key is bound to: copied under another account or id, it does not open. */
export const dataKeyAssociatedData = (accountId: string, keyId: string): string => `switchboard data key ${accountId} ${keyId}`;
