import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '@switchboard/eventstore';

const KEY_BYTES = 32;
/** Where the embedded mode keeps a generated key when `SWITCHBOARD_SECRET_KEY` is unset. */
export const SECRET_KEY_FILE = 'secret-key';

export class InvalidSecretKeyError extends Error {
  override readonly name = 'InvalidSecretKeyError';
  constructor(detail: string) {
    super(`SWITCHBOARD_SECRET_KEY must be 32 bytes as 64 hex characters or base64: ${detail}`);
  }
}

/** Reads a 32-byte key written as hex or base64 (standard or url-safe). */
export function parseSecretKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) throw new InvalidSecretKeyError('neither hex nor base64');
  const key = Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES) throw new InvalidSecretKeyError(`decodes to ${key.length} bytes`);
  return key;
}

/**
 * The embedded mode's key: read from `<dataDir>/secret-key`, or generated there on first start,
 * readable by the owner only. Exclusive create, so two processes racing agree on one key.
 */
export function loadOrCreateSecretKey(dataDir: string): Buffer {
  const path = join(dataDir, SECRET_KEY_FILE);
  ensurePrivateDir(dataDir);
  try {
    writeFileSync(path, `${randomBytes(KEY_BYTES).toString('hex')}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  return parseSecretKey(readFileSync(path, 'utf8'));
}

/** `SWITCHBOARD_SECRET_KEY` when set; otherwise the embedded mode's generated key file. */
export function resolveSecretKey(options: { configured: string | undefined; dataDir: string; embedded: boolean }): Buffer {
  if (options.configured) return parseSecretKey(options.configured);
  if (!options.embedded) throw new InvalidSecretKeyError('required in distributed mode and not set');
  return loadOrCreateSecretKey(options.dataDir);
}
