import { describe, expect, it } from 'vitest';
import { reclaimDecision } from './memory-reclaimer.js';

const MiB = 2 ** 20;
const threshold = 64 * MiB;

/**
 * Runs samples (MiB) through the decision; a collection leaves `afterGc` MiB. Returns the samples
 * that collected. `busy`: the indexes of the samples taken while the process was busy.
 */
function collectedAt(samples: number[], afterGc = 100, busy: readonly number[] = []): number[] {
  let state = { floorBytes: samples[0]! * MiB };
  const collected: number[] = [];
  for (const [i, sample] of samples.entries()) {
    const decision = reclaimDecision(state, sample * MiB, threshold, busy.includes(i));
    if (decision.collect) collected.push(sample);
    state = { floorBytes: decision.collect ? afterGc * MiB : decision.floorBytes };
  }
  return collected;
}

describe('when the memory reclaimer runs a full GC', () => {
  it('not for the sawtooth of normal work, below the threshold over the lowest figure', () => {
    expect(collectedAt([100, 130, 110, 150, 120, 160])).toEqual([]);
  });

  it('once the heap and Buffers grew by the threshold over the lowest figure since the last GC', () => {
    expect(collectedAt([100, 90, 120, 154, 155])).toEqual([154]);
  });

  it('not again for data that the collection found alive: the floor moves up to what it left', () => {
    expect(collectedAt([100, 400, 400, 400, 420], 380)).toEqual([400]);
  });

  it('again after a new burst on top of what stayed', () => {
    expect(collectedAt([100, 400, 380, 460], 380)).toEqual([400, 460]);
  });

  it('not while the process is busy (V8 collects a loaded heap itself), at the first quiet sample after', () => {
    expect(collectedAt([100, 180, 200, 190, 185], 100, [1, 2, 3])).toEqual([185]);
  });
});
