import { createHistogram, performance } from 'node:perf_hooks';
import type { EventLoopUtilization, RecordableHistogram } from 'node:perf_hooks';
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';

/** The sampling period while the event loop works: every stall this long or longer is seen. */
export const WORKING_PERIOD_MS = 100;
/** The sampling period while it idles: one wake-up a second (each costs an idle VM ~0.17 ms of CPU). */
export const IDLE_PERIOD_MS = 1_000;
/** Event-loop utilization over the last period above which the process counts as working. */
export const WORKING_UTILIZATION = 0.01;

/** The next sampling period, from how busy the loop was over the last one. */
export function samplingPeriodMs(utilization: number): number {
  return utilization > WORKING_UTILIZATION ? WORKING_PERIOD_MS : IDLE_PERIOD_MS;
}

/** The gauges prom-client's default metrics would give, under the same names (dashboards use them). */
const DELAY_GAUGES = {
  min: ['nodejs_eventloop_lag_min_seconds', 'The minimum recorded event loop delay.'],
  max: ['nodejs_eventloop_lag_max_seconds', 'The maximum recorded event loop delay.'],
  mean: ['nodejs_eventloop_lag_mean_seconds', 'The mean of the recorded event loop delays.'],
  stddev: ['nodejs_eventloop_lag_stddev_seconds', 'The standard deviation of the recorded event loop delays.'],
  p50: ['nodejs_eventloop_lag_p50_seconds', 'The 50th percentile of the recorded event loop delays.'],
  p90: ['nodejs_eventloop_lag_p90_seconds', 'The 90th percentile of the recorded event loop delays.'],
  p99: ['nodejs_eventloop_lag_p99_seconds', 'The 99th percentile of the recorded event loop delays.'],
} as const;
export const EVENT_LOOP_DELAY_METRICS: readonly string[] = Object.values(DELAY_GAUGES).map(([name]) => name);

/**
 * Event-loop delay: how late a timer fires (0 when on time; prom-client's figures held the
 * sampling period too). Node's own monitor (`monitorEventLoopDelay`, what prom-client uses) wakes
 * the process at a fixed period even when it has nothing to do; on this project's VMs its 100 ms
 * period alone cost an idle process 1.7 ms of CPU a second. This sampler is one timer whose period
 * follows the load: every 100 ms while the loop works (a stall of 100 ms or more under load is
 * always seen), every second while it idles. A stall in an idle second that ends before the
 * sample is recorded as the second's busy time (next to nothing else ran in it).
 */
export class EventLoopDelaySampler {
  readonly #delays: RecordableHistogram = createHistogram();
  #timer: NodeJS.Timeout | undefined;
  #due = 0;
  #since: EventLoopUtilization | undefined;
  #periodMs = WORKING_PERIOD_MS;

  start(): void {
    if (this.#timer) return;
    this.#since = performance.eventLoopUtilization();
    this.#schedule(WORKING_PERIOD_MS);
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The current period (ms): what the last look at the load chose. */
  get periodMs(): number {
    return this.#periodMs;
  }

  /** The delays recorded since the last call (ns), then forgotten: one scrape's worth. */
  take(): RecordableHistogram {
    const taken = createHistogram();
    taken.add(this.#delays);
    this.#delays.reset();
    return taken;
  }

  #schedule(periodMs: number): void {
    this.#periodMs = periodMs;
    this.#due = performance.now() + periodMs;
    this.#timer = setTimeout(() => this.#sample(), periodMs);
    this.#timer.unref();
  }

  #sample(): void {
    const late = performance.now() - this.#due;
    const { utilization, active } = performance.eventLoopUtilization(this.#since);
    this.#since = performance.eventLoopUtilization();
    const delayMs = this.#periodMs === IDLE_PERIOD_MS ? Math.max(late, active) : late;
    this.#delays.record(Math.max(1, Math.round(delayMs * 1e6)));
    this.#schedule(samplingPeriodMs(utilization));
  }
}

let processSampler: EventLoopDelaySampler | undefined;

/** One sampler per process, started on first use: a second registry would read the same delays. */
function sharedSampler(): EventLoopDelaySampler {
  processSampler ??= new EventLoopDelaySampler();
  processSampler.start();
  return processSampler;
}

/**
 * Registers the delay gauges on `registry` (replacing prom-client's of the same names, whose
 * sampler must then not run), read from the process's one sampler: each scrape takes what was
 * recorded since the last (one registry per process: `processMetrics`).
 */
export function registerEventLoopDelay(registry: Registry): void {
  const sampler = sharedSampler();
  for (const name of EVENT_LOOP_DELAY_METRICS) registry.removeSingleMetric(name);
  const gauges = {} as Record<keyof typeof DELAY_GAUGES, Gauge>;
  for (const [key, [name, help]] of Object.entries(DELAY_GAUGES) as [keyof typeof DELAY_GAUGES, readonly [string, string]][]) {
    // The first gauge's collect (run at each scrape, before the others are read) sets them all.
    const collect = key === 'min' ? () => report(sampler.take(), gauges) : undefined;
    gauges[key] = new Gauge({ name, help, registers: [registry], aggregator: key === 'min' ? 'min' : key === 'max' ? 'max' : 'average', collect });
  }
}

function report(delays: RecordableHistogram, gauges: Record<keyof typeof DELAY_GAUGES, Gauge>): void {
  // No sample yet (a scrape right after start): zeros, not the histogram's empty sentinels.
  const empty = delays.count === 0;
  const seconds = (ns: number): number => (empty ? 0 : ns / 1e9);
  gauges.min.set(seconds(delays.min));
  gauges.max.set(seconds(delays.max));
  gauges.mean.set(seconds(delays.mean));
  gauges.stddev.set(seconds(delays.stddev));
  gauges.p50.set(seconds(delays.percentile(50)));
  gauges.p90.set(seconds(delays.percentile(90)));
  gauges.p99.set(seconds(delays.percentile(99)));
}
