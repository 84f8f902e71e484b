import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { InProcessBus, NatsBus } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { PrivateNatsServer } from '@switchboard/bus/testing';
import { QuotaSubjects } from '@switchboard/contracts';
import { createLogger } from '@switchboard/telemetry';
import { ulid } from 'ulid';
import { startQuotaService } from '../src/service.js';

// Reservations/s (sb.v1.quota.reserveDaily, each a unique message id, unlimited enterprise
// accounts so no request is refused) for one hot account and spread over 100 accounts, over the
// in-process bus and over NATS (a private nats-server on loopback). ~6 s per case.

const secondsPerCase = Number(process.env['BENCH_SECONDS'] ?? 6);
const inFlight = 32;
const logger = createLogger({ service: 'quota-bench', level: 'silent' });

interface CaseResult { name: string; perSecond: number; p50: number; p99: number; total: number }

async function measure(name: string, client: Bus, accounts: string[]): Promise<CaseResult> {
  const latencies: number[] = [];
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
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { name, perSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), total: latencies.length };
}

async function openAccounts(client: Bus, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const reply = await client.request(QuotaSubjects.accounts.create.subject, { plan: 'enterprise' }, { timeoutMs: 30_000 });
    ids.push((reply.data as { accountId: string }).accountId);
  }
  return ids;
}

async function runTransport(label: string, serviceBus: Bus, client: Bus): Promise<CaseResult[]> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sb-quota-bench-'));
  const service = await startQuotaService({ bus: serviceBus, config: { dataDir, defaultPlan: 'enterprise' }, logger });
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
  console.log(`quota reserveDaily, ${inFlight} in flight, ${secondsPerCase} s per case (SQLite store, WAL)`);
  for (const r of results) {
    console.log(`${r.name.padEnd(26)} ${r.perSecond.toFixed(0).padStart(7)} reservations/s   p50 ${r.p50.toFixed(1)} ms   p99 ${r.p99.toFixed(1)} ms   (${r.total})`);
  }
}

await main();
