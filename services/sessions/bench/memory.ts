import { setTimeout as sleep } from 'node:timers/promises';

export interface MemorySample {
  heapUsedMb: number;
  rssMb: number;
  externalMb: number;
}

const MB = 1024 * 1024;

/** heapUsed after full collections: what the process really keeps, unlike RSS. */
export async function settledMemory(): Promise<MemorySample> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run the benchmark with node --expose-gc');
  for (let round = 0; round < 3; round++) {
    gc();
    await sleep(20);
  }
  const usage = process.memoryUsage();
  return { heapUsedMb: usage.heapUsed / MB, rssMb: usage.rss / MB, externalMb: usage.external / MB };
}

export function perSessionKb(before: MemorySample, after: MemorySample, sessions: number) {
  const kb = (mb: number) => Math.round((mb * 1024) / sessions);
  return {
    heapKb: kb(after.heapUsedMb - before.heapUsedMb),
    externalKb: kb(after.externalMb - before.externalMb),
    rssKb: kb(after.rssMb - before.rssMb),
  };
}

export const round = (value: number, digits = 1) => Number(value.toFixed(digits));
