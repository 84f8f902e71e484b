import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { InProcessBus, NatsBus } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { PrivateNatsServer } from '@switchboard/bus/testing';
import { QuotaSubjects } from '@switchboard/contracts';
import { createTestDatabase, postgresSkipReason } from '@switchboard/eventstore/testing';
import { createLogger, processMetrics } from '@switchboard/telemetry';
import { ulid } from 'ulid';
import { startQuotaService } from '../src/service.js';

// Reservations/s (sb.v1.quota.reserveDaily, each a unique message id, unlimited enterprise
// accounts so no request is refused) for one hot account and spread over 100 accounts, over the
// in-process bus and over NATS (a private nats-server on loopback), on the SQLite store, and over
// the in-process bus on the PostgreSQL store (a database of its own on the local server, dropped
// after). Each case prints this process's CPU per reservation (the service and the load generator
// share it; the generator is a loop of bus requests) and, on PostgreSQL, the round trips per
// reservation (the server's own CPU is not counted). ~6 s per case.

const secondsPerCase = Number(process.env['BENCH_SECONDS'] ?? 6);
const inFlight = 32;
const logger = createLogger({ service: 'quota-bench', level: 'silent' });

interface CaseResult { name: string; perSecond: number; p50: number; p99: number; total: number; cpuUs: number; roundTrips: number }

/** PostgreSQL round trips this process made so far (every schema). */
async function postgresRoundTrips(): Promise<number> {
  return (await processMetrics().postgresQueries.get()).values.reduce((sum, value) => sum + value.value, 0);
}

async function measure(name: string, client: Bus, accounts: string[]): Promise<CaseResult> {
  const latencies: number[] = [];
  const [cpuBefore, tripsBefore] = [process.cpuUsage(), await postgresRoundTrips()];
  const endAt = performance.now() + secondsPerCase * 1000;
  let n = 0;
  const worker = async (): Promise<void> => {
    while (performance.now() < endAt) {
      const accountId = accounts[n++ % accounts.length]!;
      const started = performance.now();
      await client.request(QuotaSubjects.reserveDaily.subject, { accountId, messageId: `msg_${ulid()}` }, { timeoutMs: 30_000 });
      latencies.push(performance.now() - started);
    }
  };
  const began = performance.now();
  await Promise.all(Array.from({ length: inFlight }, worker));
  const elapsed = (performance.now() - began) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const roundTrips = (await postgresRoundTrips()) - tripsBefore;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  const total = latencies.length;
  return { name, perSecond: total / elapsed, p50: at(0.5), p99: at(0.99), total, cpuUs: (cpu.user + cpu.system) / total, roundTrips: roundTrips / total };
}

async function openAccounts(client: Bus, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const reply = await client.request(QuotaSubjects.accounts.create.subject, { plan: 'enterprise' }, { timeoutMs: 30_000 });
    ids.push((reply.data as { accountId: string }).accountId);
  }
  return ids;
}

async function runTransport(label: string, serviceBus: Bus, client: Bus, eventStoreUrl?: string): Promise<CaseResult[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-quota-bench-'));
  const service = await startQuotaService({ bus: serviceBus, config: { dataDir, defaultPlan: 'enterprise', eventStoreUrl }, logger });
  try {
    const accounts = await openAccounts(client, 101);
    return [
      await measure(`${label}: one account`, client, accounts.slice(0, 1)),
      await measure(`${label}: 100 accounts`, client, accounts.slice(1)),
    ];
  } finally {
    await service.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const results: CaseResult[] = [];
  const inProcess = new InProcessBus();
  results.push(...(await runTransport('in-process', inProcess, inProcess)));
  await inProcess.close();
  const skip = await postgresSkipReason();
  if (skip) console.log(`PostgreSQL cases skipped: ${skip}`);
  else {
    const database = await createTestDatabase('sb_quota_bench');
    const bus = new InProcessBus();
    try {
      results.push(...(await runTransport('in-process, PostgreSQL', bus, bus, database.url)));
    } finally {
      await bus.close();
      await database.drop();
    }
  }
  const nats = await PrivateNatsServer.start();
  const serviceBus = await NatsBus.connect({ servers: nats.url, name: 'quota' });
  const client = await NatsBus.connect({ servers: nats.url, name: 'quota-bench-client' });
  try {
    results.push(...(await runTransport('NATS', serviceBus, client)));
  } finally {
    await client.close();
    await serviceBus.close();
    await nats.stop();
  }
  console.log(`quota reserveDaily, ${inFlight} in flight, ${secondsPerCase} s per case (SQLite store in WAL mode unless named)`);
  for (const r of results) {
    const trips = r.roundTrips > 0 ? `   ${r.roundTrips.toFixed(2)} PostgreSQL round trips` : '';
    console.log(`${r.name.padEnd(38)} ${r.perSecond.toFixed(0).padStart(7)} reservations/s   p50 ${r.p50.toFixed(1)} ms   p99 ${r.p99.toFixed(1)} ms   ${r.cpuUs.toFixed(0)} µs CPU   (${r.total})${trips}`);
  }
}

await main();
