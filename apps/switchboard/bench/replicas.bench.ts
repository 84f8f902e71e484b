/**
 * `npm run bench:replicas -w @switchboard/app` (also part of `npm run bench`): issue 14's
 * figures for sessions shared by replicas. For each size in BENCH_REPLICAS_SESSIONS (default
 * `30,300`; add 1000 for the long run), a distributed Switchboard with three sessions processes
 * (PostgreSQL + a private NATS, the emulator in its own process) links that many sessions, then:
 * - lease traffic: KV writes per second on the replicas and owners buckets while idle, and bytes;
 * - failover: SIGKILL of one replica -> every device online again (connections 1) on the
 *   survivors; the survivors' CPU per session taken over;
 * - drain: SIGTERM of one of the two survivors -> its exit, and every device online on the last
 *   one; time per session handed over;
 * - never two: `maxConcurrentConnections` of every device after all of it.
 */
import { connect } from '@nats-io/transport-node';
import { inParallel, linkSessions as linkSessionsOf } from './linked-sessions.js';
import { serverCpuPerTask } from './process-metrics.js';
import { startDistributed } from '../test/support/harness.js';
import type { SwitchboardUnderTest } from '../test/support/harness.js';
import { scrape } from '../test/support/scrape.js';

const SIZES = (process.env['BENCH_REPLICAS_SESSIONS'] ?? '30,300').split(',').map(Number);
async function linkSessions(sut: SwitchboardUnderTest, count: number, size: number): Promise<string[]> {
  const phones = Array.from({ length: count }, (_, i) => `1556${String(size).padStart(4, '0')}${String(i).padStart(4, '0')}`);
  await linkSessionsOf(sut, phones, 120_000);
  return phones;
}

/** Every device online with exactly one connection; polled until true, answers when it became so. */
async function untilAllOnline(sut: SwitchboardUnderTest, phones: readonly string[], timeoutMs: number): Promise<number> {
  const giveUpAt = performance.now() + timeoutMs;
  for (;;) {
    const devices = await inParallel(phones, (phone) => sut.emulator.device(phone));
    if (devices.every((d) => d.online && d.connections === 1)) return performance.now();
    if (performance.now() > giveUpAt) throw new Error(`not every device online within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** KV writes (and bytes) per second on the directory's buckets while nothing changes. */
async function leaseTraffic(natsUrl: string, seconds: number) {
  const connection = await connect({ servers: natsUrl });
  const counts = { replicas: 0, owners: 0, bytes: 0 };
  const count = (bucket: 'replicas' | 'owners') => (_error: Error | null, message: { data: Uint8Array }) => {
    counts[bucket] += 1;
    counts.bytes += message.data.length;
  };
  const replicas = connection.subscribe('$KV.sb_sessions_replicas.>', { callback: count('replicas') });
  const owners = connection.subscribe('$KV.sb_sessions_owners.>', { callback: count('owners') });
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  replicas.unsubscribe();
  owners.unsubscribe();
  await connection.close();
  return { replicaWritesPerS: +(counts.replicas / seconds).toFixed(2), ownerWritesPerS: +(counts.owners / seconds).toFixed(2), bytesPerS: Math.round(counts.bytes / seconds) };
}

const connectionsOf = async (metricsUrl: string) => (await scrape(metricsUrl).catch((): Record<string, number> => ({})))['switchboard_chat_connections'] ?? 0;

async function oneSize(size: number) {
  const sut = await startDistributed({ sessionsReplicas: 3, env: { LOG_LEVEL: 'error' } });
  try {
    const replicas = sut.cluster!.sessionsReplicas;
    const linkStarted = performance.now();
    const phones = await linkSessions(sut, size, size);
    const linkS = (performance.now() - linkStarted) / 1000;
    const spread = await Promise.all(replicas.map((r) => connectionsOf(r.metricsUrl)));
    const traffic = await leaseTraffic(sut.natsUrl!, 10);

    // Failover: the survivors' CPU from the kill until every device is online again.
    const [first, second, victim] = replicas as [typeof replicas[0], typeof replicas[0], typeof replicas[0]];
    const victimHeld = spread[2]!;
    const failover = await serverCpuPerTask({ first: first.pid!, second: second.pid! }, Math.max(victimHeld, 1), async () => {
      const killedAt = performance.now();
      await victim.kill();
      const onlineAt = await untilAllOnline(sut, phones, 120_000);
      return { failoverS: +((onlineAt - killedAt) / 1000).toFixed(2) };
    });

    // Drain: one survivor hands everything to the last one.
    const held = await connectionsOf(second.metricsUrl);
    const stopAt = performance.now();
    await second.stop();
    const exitedS = (performance.now() - stopAt) / 1000;
    const drainedOnlineAt = await untilAllOnline(sut, phones, 120_000);
    const drainS = (drainedOnlineAt - stopAt) / 1000;

    const overlaps = (await inParallel(phones, (phone) => sut.emulator.device(phone))).filter((d) => d.maxConcurrentConnections !== 1).length;
    return {
      sessions: size,
      linkS: +linkS.toFixed(1),
      spread: spread.join('/'),
      ...traffic,
      victimHeld,
      failoverS: failover.failoverS,
      survivorsCpuMsPerSessionTakenOver: failover.cpuMsPerSend,
      drainHeld: held,
      drainExitS: +exitedS.toFixed(2),
      drainAllOnlineS: +drainS.toFixed(2),
      drainMsPerSession: +((exitedS * 1000) / Math.max(held, 1)).toFixed(1),
      devicesEverConnectedTwice: overlaps,
    };
  } finally {
    await sut.close();
  }
}

const rows = [];
for (const size of SIZES) {
  const row = await oneSize(size);
  console.error(JSON.stringify(row));
  rows.push(row);
}
console.table(rows);
