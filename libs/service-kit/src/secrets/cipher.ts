import { createCipheriv, createDecipheriv, createSecretKey, type KeyObject } from 'node:crypto';
import { pooledRandomBytes } from '@switchboard/telemetry';

const FORMAT_V1 = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;

export class SecretDecryptionError extends Error {
  override readonly name = 'SecretDecryptionError';
  constructor(where: string, options?: { cause?: unknown }) {
    super(`cannot decrypt a stored secret (${where}): wrong SWITCHBOARD_SECRET_KEY or damaged data`, options);
  }
}

/**
 * AES-256-GCM with a fresh random IV per value (chat credentials, webhook secrets). The associated
 * data names the row, so a ciphertext copied into another row does not decrypt.
 * Layout: version(1) | iv(12) | tag(16) | ciphertext.
 */
export class SecretCipher {
  /** A KeyObject, so each operation skips re-importing raw key bytes. */
  readonly #key: KeyObject;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new RangeError('the secret key must be 32 bytes');
    this.#key = createSecretKey(Buffer.from(key));
  }

  seal(plaintext: Buffer, associatedData: string): Buffer {
    // A view of the shared pool: copied into the cipher and the output before anything else draws.
    const iv = pooledRandomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(associatedData));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.of(FORMAT_V1), iv, cipher.getAuthTag(), body]);
  }

  open(sealed: Uint8Array, associatedData: string): Buffer {
    const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    if (bytes.length < HEADER_BYTES || bytes[0] !== FORMAT_V1) throw new SecretDecryptionError(associatedData);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, bytes.subarray(1, 1 + IV_BYTES));
    decipher.setAAD(Buffer.from(associatedData));
    decipher.setAuthTag(bytes.subarray(1 + IV_BYTES, HEADER_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES)), decipher.final()]);
    } catch (error) {
      throw new SecretDecryptionError(associatedData, { cause: error });
    }
  }
}
