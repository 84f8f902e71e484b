import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Figures of a running Switchboard read from its Prometheus `/metrics` (prom-client's default
 * Node metrics): the bench stays a pure HTTP client of the process it measures (only its
 * resident memory comes from /proc, as an operator would read it).
 */
async function metric(baseUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`/metrics has no ${name}`);
  return Number(line.split(' ')[1]);
}

export const heapUsedBytes = (baseUrl: string) => metric(baseUrl, 'nodejs_heap_size_used_bytes');

/**
 * CPU the process spent per task while `run` ran (ms): unlike throughput on a shared machine,
 * this hardly moves with what else runs beside it, so before/after comparisons hold.
 */
export async function cpuMsPerTask<T>(baseUrl: string, tasks: number, run: () => Promise<T>): Promise<T & { cpuMsPerSend: number | null }> {
  // A build without /metrics still gets its throughput figures, with this one left out.
  const cpuSeconds = () => metric(baseUrl, 'process_cpu_seconds_total').catch(() => null);
  const before = await cpuSeconds();
  const result = await run();
  const after = await cpuSeconds();
  const cpuMsPerSend = before === null || after === null ? null : +(((after - before) * 1000) / tasks).toFixed(2);
  return { ...result, cpuMsPerSend };
}

/**
 * The live heap after each full GC that `gc-probe.js` forced in the process under test, read
 * from its output: the set the process really holds, without the garbage a scrape also sees.
 */
export class FullGcLog {
  readonly gcs: { liveMb: number; afterSends: number }[] = [];
  /** Sends completed so far, set by the caller: each GC is placed at this count. */
  sends = 0;
  #partial = '';

  read(chunk: string): void {
    const lines = (this.#partial + chunk).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const line of lines) {
      const match = /^\[gc-probe\] live heap (\d+)$/.exec(line);
      if (match) this.gcs.push({ liveMb: +(Number(match[1]) / 2 ** 20).toFixed(1), afterSends: this.sends });
    }
  }
}

/**
 * Sends `count` messages with `send`, reading the heap every `count / 20` sends. The verdict
 * rests on the live heap after full GCs during the run (first vs last); the scraped heapUsed
 * samples show the sawtooth around it.
 */
export async function soak(baseUrl: string, count: number, send: (i: number) => Promise<void>, fullGcs: FullGcLog) {
  const every = Math.max(1, Math.floor(count / 20));
  const mb = (bytes: number) => +(bytes / 2 ** 20).toFixed(1);
  const scraped: number[] = [mb(await heapUsedBytes(baseUrl))];
  const gcsBefore = fullGcs.gcs.length;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    await send(i);
    fullGcs.sends = i + 1;
    if ((i + 1) % every === 0) scraped.push(mb(await heapUsedBytes(baseUrl)));
  }
  const seconds = (performance.now() - started) / 1000;
  const live = fullGcs.gcs.slice(gcsBefore);
  const [first, last] = [live[0], live.at(-1)];
  const span = first && last ? last.afterSends - first.afterSends : 0;
  return {
    sends: count,
    perSecond: Math.round(count / seconds),
    fullGcs: live.length,
    liveHeapAfterFirstFullGcMb: first?.liveMb ?? null,
    liveHeapAfterLastFullGcMb: last?.liveMb ?? null,
    liveGrowthKbPerMessage: first && last && span > 0 ? +(((last.liveMb - first.liveMb) * 1024) / span).toFixed(2) : null,
    liveHeapAfterFullGcs: live.map((gc) => `${gc.liveMb} MB after ${gc.afterSends}`),
    heapUsedScrapedMb: scraped,
  };
}

/**
 * Resident memory of process `pid` from /proc (Linux), in MiB: `rss` now (VmRSS) and `peak`, the
 * most it ever held (VmHWM), what an operator's `ps`/`top` and the OOM killer go by.
 */
export function residentMiB(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
  return { rss: +(kib('VmRSS') / 1024).toFixed(1), peak: +(kib('VmHWM') / 1024).toFixed(1) };
}

/**
 * The V8 heap (used, and what it keeps from the system) and the memory outside it that V8 knows
 * of (Buffers, ...), from /metrics, in MiB.
 */
export async function heapMiB(baseUrl: string): Promise<{ heapUsed: number; heapTotal: number; external: number }> {
  const mb = (bytes: number) => +(bytes / 2 ** 20).toFixed(1);
  return {
    heapUsed: mb(await heapUsedBytes(baseUrl)),
    heapTotal: mb(await metric(baseUrl, 'nodejs_heap_size_total_bytes')),
    external: mb(await metric(baseUrl, 'nodejs_external_memory_bytes')),
  };
}

/** Starts VmHWM over from the current RSS (clear_refs 5), so `peak` is the peak of what follows. */
export function resetPeakResident(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // Not allowed here (another user's process, a hardened kernel): the sampled RSS still counts.
  }
}
