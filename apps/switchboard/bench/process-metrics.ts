import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

/**
 * Figures of a running Switchboard read from its Prometheus `/metrics` (prom-client's default
 * Node metrics and ours); CPU time and resident memory come from /proc by process id, as an
 * operator's `top` reads them, so that every process of the distributed mode is counted.
 */
async function metric(baseUrl: string, name: string): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (line === undefined) throw new Error(`/metrics has no ${name}`);
  return Number(line.split(' ')[1]);
}

export const heapUsedBytes = (baseUrl: string) => metric(baseUrl, 'nodejs_heap_size_used_bytes');

let ticksPerSecond: number | undefined;

/** CPU time (user + system) process `pid` has used so far, in ms, from /proc (Linux). */
export function processCpuMs(pid: number): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  // Fields after the command name (which may hold spaces): utime is the 14th field, stime the 15th.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

/**
 * Server CPU per task while `run` ran, in ms: summed over `processes` (every process of the
 * distributed mode, or the one embedded process) and per process, read from /proc by pid.
 */
export async function serverCpuPerTask<T>(processes: Record<string, number>, tasks: number, run: () => Promise<T>) {
  const before = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, processCpuMs(pid)]));
  const result = await run();
  const perProcess = Object.fromEntries(Object.entries(processes).map(([name, pid]) => [name, +((processCpuMs(pid) - before[name]!) / tasks).toFixed(2)]));
  const cpuMsPerSend = +Object.values(perProcess).reduce((a, b) => a + b, 0).toFixed(2);
  return { ...result, cpuMsPerSend, ...(Object.keys(processes).length > 1 ? { cpuMsPerSendByProcess: perProcess } : {}) };
}

/** The CPU this process itself spent per task while `run` ran (raw Baileys runs in the bench process). */
export async function ownCpuPerTask<T>(tasks: number, run: () => Promise<T>) {
  const before = process.cpuUsage();
  const result = await run();
  const used = process.cpuUsage(before);
  return { ...result, cpuMsPerSend: +((used.user + used.system) / 1000 / tasks).toFixed(2) };
}

/** A labelled sample line of the text format: name, labels, value. */
const SAMPLE = /^(\w+)\{(.*)\} (\d+)$/;

/** The samples counted, by metric name: the kind they add to, and the label that splits it. */
const KINDS: Partial<Record<string, { kind: string; by?: RegExp }>> = {
  switchboard_bus_request_duration_seconds_count: { kind: 'busRequests' },
  switchboard_eventstore_append_duration_seconds_count: { kind: 'appends' },
  switchboard_sqlite_transactions_total: { kind: 'sqliteTransactions', by: /database="([^"]*)"/ },
  switchboard_postgres_queries_total: { kind: 'postgresQueries', by: /schema="([^"]*)"/ },
};

/**
 * Bus requests, appends, SQLite transactions and PostgreSQL round trips so far, from every
 * `/metrics` given (each process of the distributed mode has its own), summed by kind; the
 * transactions also by database (`sqliteTransactions.<database>`) and the round trips by schema
 * (`postgresQueries.<schema>`), to show where they come from.
 */
async function workCounts(metricsUrls: readonly string[]): Promise<Record<string, number>> {
  const counts: Record<string, number> = { busRequests: 0, appends: 0, sqliteTransactions: 0, postgresQueries: 0 };
  for (const url of metricsUrls) {
    const text = await (await fetch(url)).text();
    for (const line of text.split('\n')) {
      const match = SAMPLE.exec(line);
      const counted = match && KINDS[match[1]!];
      if (!counted) continue;
      const { kind, by } = counted;
      counts[kind]! += Number(match[3]);
      const part = by?.exec(match[2]!)?.[1];
      if (part !== undefined) counts[`${kind}.${part}`] = (counts[`${kind}.${part}`] ?? 0) + Number(match[3]);
    }
  }
  return counts;
}

/**
 * Bus round trips, event appends, SQLite transactions and PostgreSQL round trips per task while
 * `run` ran (and a second after it, for the receipts that follow a send), read from `/metrics`.
 */
export async function workPerTask<T>(metricsUrls: readonly string[], tasks: number, run: () => Promise<T>) {
  const before = await workCounts(metricsUrls);
  const result = await run();
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const after = await workCounts(metricsUrls);
  const perSend = Object.fromEntries(Object.keys(after).map((kind) => [kind, +((after[kind]! - (before[kind] ?? 0)) / tasks).toFixed(2)]));
  return { ...result, perSend };
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
 * Sends `count` messages with `send`, `inFlight` at a time, reading the heap every `count / 20` sends. The verdict
 * rests on the live heap after full GCs during the run (first vs last); the scraped heapUsed
 * samples show the sawtooth around it.
 */
export async function soak(baseUrl: string, count: number, inFlight: number, send: (i: number) => Promise<void>, fullGcs: FullGcLog) {
  const every = Math.max(1, Math.floor(count / 20));
  const mb = (bytes: number) => +(bytes / 2 ** 20).toFixed(1);
  const scraped: number[] = [mb(await heapUsedBytes(baseUrl))];
  const gcsBefore = fullGcs.gcs.length;
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await send(i);
      fullGcs.sends += 1;
      if (fullGcs.sends % every === 0) scraped.push(mb(await heapUsedBytes(baseUrl)));
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  const seconds = (performance.now() - started) / 1000;
  const live = fullGcs.gcs.slice(gcsBefore);
  const [first, last] = [live[0], live.at(-1)];
  // The bounded caches fill in the first thousands of sends: the second half shows what keeps growing.
  const halfway = live.find((gc) => gc.afterSends >= count / 2);
  const growth = (from: typeof first) => (from && last && last.afterSends > from.afterSends ? +(((last.liveMb - from.liveMb) * 1024) / (last.afterSends - from.afterSends)).toFixed(3) : null);
  return {
    sends: count,
    perSecond: Math.round(count / seconds),
    fullGcs: live.length,
    liveHeapAfterFirstFullGcMb: first?.liveMb ?? null,
    liveHeapAfterLastFullGcMb: last?.liveMb ?? null,
    liveGrowthKbPerMessage: growth(first),
    liveGrowthKbPerMessageSecondHalf: growth(halfway),
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
