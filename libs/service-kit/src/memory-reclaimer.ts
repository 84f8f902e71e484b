import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { Logger } from '@switchboard/telemetry';

/**
 * Why: a burst of large requests (20 MiB JSON bodies, base64 media) leaves hundreds of MiB of
 * dead strings and Buffers behind. V8 collects them only when allocation pushes it to, and an
 * idle process allocates next to nothing, so that garbage (and the RSS under it) stayed for good.
 * Every `intervalMs` the reclaimer compares the V8 heap plus the memory outside it (Buffers) with
 * the lowest figure seen since its last collection, and runs one full GC when it grew by
 * `thresholdBytes` or more. Live data is not collected twice: the floor moves up to what a
 * collection left. The first tick always collects: start-up (schemas, the OpenAPI document, module
 * loading) leaves tens of MiB of garbage that an idle process would otherwise keep as RSS.
 * A busy process is left to V8 (its allocation drives V8's own concurrent, incremental collector):
 * a forced full GC is atomic, and under load it stopped every request for a quarter of a second
 * (and the young garbage of the load itself looked like growth). The collection waits for the
 * first tick at which the event loop was busy less than BUSY_UTILIZATION of the interval.
 */
export interface MemoryReclaimerOptions {
  intervalMs?: number;
  thresholdBytes?: number;
  logger?: Logger;
}

export const RECLAIM_INTERVAL_MS = 10_000;
export const RECLAIM_THRESHOLD_BYTES = 64 * 2 ** 20;
/** Event loop utilization over an interval above which the process counts as busy (serving load). */
export const BUSY_UTILIZATION = 0.2;

/** What the reclaimer knows between two samples: the lowest heap + external since its last collection. */
export interface ReclaimState {
  floorBytes: number;
}

/** One sample's decision: collect now or not (never while `busy`: later), and the floor to keep. */
export function reclaimDecision(state: ReclaimState, heldBytes: number, thresholdBytes: number, busy = false): { collect: boolean; floorBytes: number } {
  const floorBytes = Math.min(state.floorBytes, heldBytes);
  return { collect: !busy && heldBytes - floorBytes >= thresholdBytes, floorBytes };
}

/** Starts sampling (an unref'd timer: it never keeps the process alive); returns its stop. */
export function startMemoryReclaimer(options: MemoryReclaimerOptions = {}): () => void {
  const threshold = options.thresholdBytes ?? RECLAIM_THRESHOLD_BYTES;
  const collectGarbage = fullGc();
  let state: ReclaimState = { floorBytes: heldBytes() };
  let startUpCollected = false;
  let loopSince = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const held = heldBytes();
    const busy = performance.eventLoopUtilization(loopSince).utilization > BUSY_UTILIZATION;
    loopSince = performance.eventLoopUtilization();
    if (!startUpCollected && !busy) {
      startUpCollected = true;
      collectGarbage();
      state = { floorBytes: heldBytes() };
      return;
    }
    const decision = reclaimDecision(state, held, threshold, busy);
    if (!decision.collect) {
      state = { floorBytes: decision.floorBytes };
      return;
    }
    collectGarbage();
    state = { floorBytes: heldBytes() };
    options.logger?.debug({ heldMiB: toMiB(held), afterMiB: toMiB(state.floorBytes), rssMiB: toMiB(process.memoryUsage.rss()) }, 'memory reclaimed');
  }, options.intervalMs ?? RECLAIM_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** The V8 heap in use plus the memory outside it that V8 accounts for (Buffers, ArrayBuffers). */
function heldBytes(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external;
}

/**
 * V8's full, synchronous GC. `--expose-gc` on the command line would put `gc` on every global;
 * set at run time it exposes it only to a new context, which is all we need (GC is per isolate).
 */
function fullGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

const toMiB = (bytes: number) => Math.round(bytes / 2 ** 20);
