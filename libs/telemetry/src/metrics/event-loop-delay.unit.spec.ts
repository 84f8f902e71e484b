import { describe, expect, it } from 'vitest';
import { createMetrics } from './catalog.js';
import { EVENT_LOOP_DELAY_METRICS, EventLoopDelaySampler, IDLE_PERIOD_MS, WORKING_PERIOD_MS, samplingPeriodMs } from './event-loop-delay.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const block = (ms: number) => {
  const until = Date.now() + ms;
  while (Date.now() < until);
};

describe('event-loop delay', () => {
  it('samples every 100 ms while the loop works and every second while it idles', () => {
    expect(samplingPeriodMs(0)).toBe(IDLE_PERIOD_MS);
    expect(samplingPeriodMs(0.005)).toBe(IDLE_PERIOD_MS);
    expect(samplingPeriodMs(0.3)).toBe(WORKING_PERIOD_MS);
  });

  it('records a stall of the loop as the delay of its sample, and slows down once the loop idles', async () => {
    const sampler = new EventLoopDelaySampler();
    sampler.start();
    try {
      // The first sample is due in 100 ms: the loop is held for 250.
      block(250);
      await sleep(50);
      const delays = sampler.take();
      expect(delays.count).toBeGreaterThanOrEqual(1);
      expect(delays.max / 1e6).toBeGreaterThanOrEqual(140);
      // What was taken is forgotten: the next scrape reports only what came after.
      expect(sampler.take().count).toBe(0);
      // Periods with next to nothing to do: the next sample is a second away.
      for (let waited = 0; sampler.periodMs !== IDLE_PERIOD_MS && waited < 5_000; waited += WORKING_PERIOD_MS) await sleep(WORKING_PERIOD_MS);
      expect(sampler.periodMs).toBe(IDLE_PERIOD_MS);
    } finally {
      sampler.stop();
    }
  });

  it('records a stall inside an idle second as that second’s busy time, though the sample itself came on time', async () => {
    const sampler = new EventLoopDelaySampler();
    sampler.start();
    try {
      for (let waited = 0; sampler.periodMs !== IDLE_PERIOD_MS && waited < 5_000; waited += WORKING_PERIOD_MS) await sleep(WORKING_PERIOD_MS);
      sampler.take();
      // A stall right after the idle period began, over well before the sample is due.
      await sleep(10);
      block(200);
      await sleep(IDLE_PERIOD_MS);
      expect(sampler.take().max / 1e6).toBeGreaterThanOrEqual(190);
    } finally {
      sampler.stop();
    }
  });

  it('keeps the names dashboards use, with prom-client’s own lag gauge beside them, each once', async () => {
    const text = await createMetrics().registry.metrics();
    for (const name of [...EVENT_LOOP_DELAY_METRICS, 'nodejs_eventloop_lag_seconds']) {
      expect(text.split('\n').filter((line) => line === `# TYPE ${name} gauge`)).toHaveLength(1);
      expect(text).toMatch(new RegExp(`^${name} \\d`, 'm'));
    }
  });
});
