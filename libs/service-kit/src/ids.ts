import { randomFillSync } from 'node:crypto';
import { monotonicFactory, ulid as ulidOf } from 'ulid';

const POOL_BYTES = 4_096;
const pool = Buffer.alloc(POOL_BYTES);
let next = POOL_BYTES;

/**
 * Cryptographic randomness drawn from a pooled buffer: the `ulid` package asks its generator for
 * one byte per character, and its default makes a `getRandomValues` call each time (16 per id,
 * a visible share of a send's CPU). One `randomFillSync` per 4 KiB serves 256 ids.
 */
function pooledRandom(): number {
  if (next >= POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

/**
 * `bytes` random bytes as lower-case hex, from the same pool: request and trace ids (one
 * `randomBytes` call per HTTP request was a visible share of a read's CPU).
 */
export function randomHex(bytes: number): string {
  if (next + bytes > POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  next += bytes;
  return pool.toString('hex', next - bytes, next);
}

/** A new ULID (time-ordered, 80 random bits): message, account, key and webhook ids. */
export function ulid(): string {
  return ulidOf(Date.now(), pooledRandom);
}

const increasing = monotonicFactory(pooledRandom);

/**
 * A ULID greater than every one this process made with it before, even within one millisecond
 * (`ulid()` is only ordered across milliseconds): for ids whose order decides something, such as
 * messaging's data keys (a key id older than a destroyed one is read as destroyed).
 */
export function increasingUlid(): string {
  return increasing(Date.now());
}
