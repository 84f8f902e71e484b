import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 4_096;
const pool = Buffer.alloc(POOL_BYTES);
let next = POOL_BYTES;

/**
 * The process's one pool of cryptographic randomness, for the many small values a request needs
 * (trace, request, message and event ids, cipher IVs): one `randomFillSync` per 4 KiB instead of
 * a call per value (`randomBytes`, or `getRandomValues`, which `ulid` and `uuid` make for every id,
 * about 2 µs each).
 */
function draw(bytes: number): number {
  if (bytes > POOL_BYTES) throw new RangeError(`at most ${POOL_BYTES} pooled random bytes at a time`);
  if (next + bytes > POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  next += bytes;
  return next - bytes;
}

/**
 * `bytes` random bytes as a view of the pool: overwritten once the pool is refilled, so use them
 * at once (they are copied into whatever is made of them) or copy them.
 */
export function pooledRandomBytes(bytes: number): Buffer {
  const start = draw(bytes);
  return pool.subarray(start, start + bytes);
}

/** `bytes` random bytes as lower-case hex (request, trace and span ids). */
export function randomHex(bytes: number): string {
  const start = draw(bytes);
  return pool.toString('hex', start, start + bytes);
}

/** A random number in [0, 1) from one pooled byte: the generator `ulid` asks for each character. */
export function pooledRandomFraction(): number {
  return pool[draw(1)]! / 256;
}
