/** Latency samples in ms → the figures a benchmark prints. */
export function summarize(samples: number[], seconds: number) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  return { count: samples.length, perSecond: Math.round(samples.length / seconds), p50Ms: +at(0.5).toFixed(2), p99Ms: +at(0.99).toFixed(2) };
}

/** Runs `task` with `concurrency` in flight until `count` are done; latency of each in ms. */
export async function runLoad(count: number, concurrency: number, task: (i: number) => Promise<void>) {
  const samples: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const t0 = performance.now();
      await task(i);
      samples.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return summarize(samples, (performance.now() - started) / 1000);
}

