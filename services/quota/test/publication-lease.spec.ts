import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PublicationLease } from '../src/publisher/publication-lease.js';
import { tempDataDir } from './helpers.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function leases() {
  const data = tempDataDir();
  const file = join(data.dir, 'publisher.sqlite');
  const a = new PublicationLease(file, 'replica-a', 3_000);
  const b = new PublicationLease(file, 'replica-b', 3_000);
  cleanups.push(data.remove, () => a.close(), () => b.close());
  a.initialize(10n);
  b.initialize(99n); // the first replica's starting point wins
  return { a, b };
}

describe('publication lease shared by replicas on one store', () => {
  it('lets one replica publish at a time, from the recorded position', () => {
    const { a, b } = leases();
    expect(a.acquire(1_000)).toBe(10n);
    expect(b.acquire(1_500)).toBeUndefined();
    expect(a.advance(25n)).toBe(true);
    expect(b.acquire(3_900)).toBeUndefined();
  });

  it('passes to another replica when the holder stops renewing (crash), which resumes where it stopped', () => {
    const { a, b } = leases();
    a.acquire(1_000);
    a.advance(25n);
    expect(b.acquire(4_001)).toBe(25n);
    // The old holder, back from a pause, learns it lost the lease and records nothing.
    expect(a.advance(30n)).toBe(false);
    expect(a.acquire(4_500)).toBeUndefined();
  });

  it('hands over at once on a clean shutdown', () => {
    const { a, b } = leases();
    a.acquire(1_000);
    a.release();
    expect(b.acquire(1_001)).toBe(10n);
  });
});
