import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '@switchboard/eventstore';
import { SecretCipher } from './cipher.js';

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

/** The data dir's secrets were sealed with another key: starting would leave them unreadable. */
export class SecretKeyMismatchError extends Error {
  override readonly name = 'SecretKeyMismatchError';
  constructor(dataDir: string) {
    super(`SWITCHBOARD_SECRET_KEY: ${dataDir} holds secrets sealed with another key; start with the key it was made with, or give this key its own SWITCHBOARD_DATA_DIR`);
  }
}

/** A value sealed with the dir's key at its first start: any later start must be able to open it. */
export const KEY_CHECK_FILE = 'secret-key-check';
const KEY_CHECK_AAD = 'switchboard secret-key check';

/**
 * `SWITCHBOARD_SECRET_KEY` when set; otherwise the embedded mode's generated key file. Refused
 * (`SecretKeyMismatchError`) when the data dir's secrets were sealed with another key.
 */
export function resolveSecretKey(options: { configured: string | undefined; dataDir: string; embedded: boolean }): Buffer {
  let key: Buffer;
  if (options.configured) key = parseSecretKey(options.configured);
  else if (!options.embedded) throw new InvalidSecretKeyError('required in distributed mode and not set');
  else key = loadOrCreateSecretKey(options.dataDir);
  assertKeyOfDataDir(key, options.dataDir);
  return key;
}

/**
 * Opens the dir's check value with `key`, or writes it on a first start. A dir from before the
 * check has none: a key generated into it is then the one its secrets were sealed with.
 */
function assertKeyOfDataDir(key: Buffer, dataDir: string): void {
  const cipher = new SecretCipher(key);
  const check = join(dataDir, KEY_CHECK_FILE);
  if (!existsSync(check)) {
    const generated = join(dataDir, SECRET_KEY_FILE);
    if (existsSync(generated) && !parseSecretKey(readFileSync(generated, 'utf8')).equals(key)) throw new SecretKeyMismatchError(dataDir);
    ensurePrivateDir(dataDir);
    try {
      writeFileSync(check, cipher.seal(Buffer.from(KEY_CHECK_AAD), KEY_CHECK_AAD), { mode: PRIVATE_FILE_MODE, flag: 'wx' });
      return;
    } catch (error) {
      // Another process starting beside this one wrote it first: check against that one.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  try {
    cipher.open(readFileSync(check), KEY_CHECK_AAD);
  } catch {
    throw new SecretKeyMismatchError(dataDir);
  }
}
