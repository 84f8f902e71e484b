import { createHash } from 'node:crypto';

/**
 * Glossary:
 * - blob: an immutable byte string (a media file) stored under the lower-case hex SHA-256 of its
 *   bytes, so writers never coordinate: the same bytes always land under the same name.
 */
export interface BlobStore {
  /** Stores the bytes (idempotent: storing the same bytes again refreshes them) and names them. */
  put(bytes: Uint8Array): Promise<string>;
  /** The bytes, or `null` when nothing is stored under `sha256` (never stored, deleted, expired). */
  get(sha256: string): Promise<Uint8Array | null>;
  /** Removes the blob; `false` when there was nothing to remove. */
  delete(sha256: string): Promise<boolean>;
  close(): Promise<void>;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Lower-case hex SHA-256 of the bytes: the name a blob is stored under. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Names reach file paths and NATS subjects: only a well-formed digest is accepted. */
export function assertSha256(sha256: string): void {
  if (!SHA256_HEX.test(sha256)) throw new TypeError('blob name must be a lower-case hex SHA-256');
}

/** Stored bytes no longer hash to their name (disk corruption, a partial write). */
export class BlobIntegrityError extends Error {
  override readonly name = 'BlobIntegrityError';
  constructor(readonly sha256: string) {
    super(`blob ${sha256} is corrupt: its bytes no longer match their SHA-256`);
  }
}

/** Checks bytes read back against their name, so a reader never sends corrupt media. */
export function verified(sha256: string, bytes: Uint8Array): Uint8Array {
  if (sha256Hex(bytes) !== sha256) throw new BlobIntegrityError(sha256);
  // A plain Uint8Array view whatever the adapter read into (Node's Buffer is a subclass).
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
