import { monotonicFactory, ulid as ulidOf } from 'ulid';
import { pooledRandomFraction } from '@switchboard/telemetry';

// `ulid` asks its generator for one byte per character; its default makes a `getRandomValues`
// call each time (16 per id, a visible share of a send's CPU): the process's random pool serves them.

/** A new ULID (time-ordered, 80 random bits): message, account, key and webhook ids. */
export function ulid(): string {
  return ulidOf(Date.now(), pooledRandomFraction);
}

const increasing = monotonicFactory(pooledRandomFraction);

/**
 * A ULID greater than every one this process made with it before, even within one millisecond
 * (`ulid()` is only ordered across milliseconds): for ids whose order decides something, such as
 * messaging's data keys (a key id older than a destroyed one is read as destroyed).
 */
export function increasingUlid(): string {
  return increasing(Date.now());
}
