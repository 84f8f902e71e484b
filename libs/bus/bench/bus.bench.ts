/**
 * Round trips per second through the Bus API, sequential and with 64 requests in flight, on
 * the in-process transport and over the NATS server at SWITCHBOARD_NATS_URL (default
 * nats://127.0.0.1:4222). Telemetry is off, as in a default deployment. About 18 s in all.
 *
 *   npx nx run @switchboard/bus:bench
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createLogger } from '@switchboard/telemetry';
import type { Bus } from '../src/bus.js';
import { InProcessBus } from '../src/in-process-bus.js';
import { NatsBus } from '../src/nats-bus.js';

const WARMUP_MS = 500;
const MEASURE_MS = 3_500;
const IN_FLIGHT = 64;
const NATS_URL = process.env['SWITCHBOARD_NATS_URL'] ?? 'nats://127.0.0.1:4222';
const payload = { messageId: 'msg_01JD0000000000000000000000', accountId: 'acc_01JD0000000000000000000000', units: 1 };

interface Result {
  transport: string;
  mode: string;
  roundTripsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** `concurrency` loops of request-after-reply for `durationMs`; latencies of every reply. */
async function drive(bus: Bus, subject: string, concurrency: number, durationMs: number): Promise<number[]> {
  const latencies: number[] = [];
  const stopAt = performance.now() + durationMs;
  const loop = async () => {
    while (performance.now() < stopAt) {
      const sent = performance.now();
      await bus.request(subject, payload, { timeoutMs: 5_000 });
      latencies.push(performance.now() - sent);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return latencies;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? Number.NaN;
}

async function measure(transport: string, caller: Bus, responder: Bus): Promise<Result[]> {
  const subject = `bench.${randomUUID().slice(0, 8)}.quota.reserve`;
  await responder.subscribe(subject, (message) => ({ reserved: true, echo: message.data }), { queue: 'bench' });
  const results: Result[] = [];
  for (const [mode, concurrency] of [['sequential', 1], [`${IN_FLIGHT} in flight`, IN_FLIGHT]] as const) {
    await drive(caller, subject, concurrency, WARMUP_MS);
    const latencies = (await drive(caller, subject, concurrency, MEASURE_MS)).sort((a, b) => a - b);
    results.push({
      transport,
      mode,
      roundTripsPerSecond: Math.round(latencies.length / (MEASURE_MS / 1_000)),
      p50Ms: Number(percentile(latencies, 0.5).toFixed(3)),
      p99Ms: Number(percentile(latencies, 0.99).toFixed(3)),
    });
  }
  return results;
}

async function main(): Promise<void> {
  const logger = createLogger({ service: 'bus-bench', level: 'silent' });
  const embedded = new InProcessBus({ logger });
  const results = await measure('in-process', embedded, embedded);
  await embedded.close();

  const caller = await NatsBus.connect({ servers: NATS_URL, name: 'bus-bench-caller', logger });
  const responder = await NatsBus.connect({ servers: NATS_URL, name: 'bus-bench-responder', logger });
  results.push(...(await measure(`nats (${NATS_URL})`, caller, responder)));
  await Promise.all([caller.close(), responder.close()]);

  console.table(results);
  console.log(JSON.stringify({ node: process.version, warmupMs: WARMUP_MS, measureMs: MEASURE_MS, results }));
}

await main();
