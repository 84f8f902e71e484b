/** The row holding Baileys' `creds`; Signal keys use their own kind (`pre-key`, `session`, …). */
export const CREDS_KIND = 'creds';

/** One row to write: `value` null deletes it. */
export interface CredentialsRow {
  kind: string;
  keyId: string;
  value: Buffer | null;
}

/**
 * The port to the chat credentials of every session of this service: Baileys' `creds` and Signal
 * keys, one opaque value per (session, kind, key id), sealed at rest with `SWITCHBOARD_SECRET_KEY`
 * (AES-256-GCM) by the adapter. Serialization is the caller's business. SQLite in the embedded mode
 * (`SqliteCredentialsStore`); a JetStream KV bucket when replicas share sessions (`KvCredentialsStore`).
 */
export interface CredentialsStore {
  /** The value, opened; undefined when there is none. Throws `SecretDecryptionError` under another key. */
  read(sessionId: string, kind: string, keyId: string): Promise<Buffer | undefined>;
  /**
   * Writes (or, for a null value, deletes) the rows: all or none as far as the backend allows (each
   * adapter says what it gives). Resolves once they are durable.
   */
  write(sessionId: string, rows: readonly CredentialsRow[]): Promise<void>;
  /** Removes every row of the session: after this, it has to pair again. */
  wipe(sessionId: string): Promise<void>;
  /** How many rows the session has (operators' and tests' view; not on any hot path). */
  rowCount(sessionId: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * What each sealed value is bound to: a ciphertext copied under another session, kind or id does
 * not open. The same in every adapter, so a value means the same wherever it is kept.
 */
export function credentialsAssociatedData(sessionId: string, kind: string, keyId: string): string {
  return `chat-credentials\u0000${sessionId}\u0000${kind}\u0000${keyId}`;
}
