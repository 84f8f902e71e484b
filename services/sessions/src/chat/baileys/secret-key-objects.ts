import crypto from 'node:crypto';
import { syncBuiltinESMExports } from 'node:module';

/** The node:crypto constructors that take a secret key as their second argument. */
const KEYED = ['createHmac', 'createCipheriv', 'createDecipheriv'] as const;

/** A key given as bytes, as a KeyObject holding the same bytes; any other key as it is. */
export function asSecretKeyObject(key: unknown): unknown {
  return ArrayBuffer.isView(key) ? crypto.createSecretKey(key as unknown as NodeJS.ArrayBufferView) : key;
}

let installed = false;

/**
 * Since Node 24.18, `createHmac`, `createCipheriv` and `createDecipheriv` ask whether their key is
 * a KeyObject, then a CryptoKey, by reading a private field inside a try/catch (nodejs/node#62924,
 * #63111). A key given as bytes fails both, and each failure is a TypeError with its stack trace:
 * about 14 µs per call on the development machine, against 3-5 µs for the whole call with a
 * KeyObject. libsignal and Baileys pass Buffers on every message (chain and message keys, MACs,
 * AES-CBC, each Noise frame's AES-GCM) and take no crypto provider, so the three constructors are
 * wrapped process-wide: bytes become a KeyObject first (`createSecretKey` reads bytes without
 * those checks), which passes the first check at once. Same key bytes, same results and errors.
 * ES modules that imported them by name (Baileys) see the wrappers too (`syncBuiltinESMExports`).
 * Idempotent.
 */
export function installSecretKeyObjects(): void {
  if (installed) return;
  installed = true;
  const exports = crypto as unknown as Record<(typeof KEYED)[number], (algorithm: string, key: unknown, ...rest: unknown[]) => unknown>;
  for (const name of KEYED) {
    const original = exports[name];
    exports[name] = (algorithm, key, ...rest) => original(algorithm, asSecretKeyObject(key), ...rest);
  }
  syncBuiltinESMExports();
}
