import net from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm } from '@nats-io/kv';
import { createLogger } from '@switchboard/telemetry';
import { LeasedOwnership } from '../src/replicas/leased-ownership.js';
import { FENCE_MARGIN_MS, LEASE_TTL_MS } from '../src/replicas/lease-rules.js';
import type { LocalSessions } from '../src/replicas/ownership.js';
import { ReplicaDirectory } from '../src/replicas/replica-directory.js';

const NATS = '127.0.0.1:4222';
const logger = createLogger({ service: 'sessions', level: 'silent' });

/** Who holds which connection, across every replica of the test: an overlap fails the test at once. */
class Network {
  readonly holder = new Map<string, string>();
  readonly overlaps: string[] = [];

  open(sessionId: string, replicaId: string): void {
    const current = this.holder.get(sessionId);
    if (current && current !== replicaId) this.overlaps.push(`${sessionId}: ${current} and ${replicaId}`);
    this.holder.set(sessionId, replicaId);
  }

  close(sessionId: string, replicaId: string): void {
    if (this.holder.get(sessionId) === replicaId) this.holder.delete(sessionId);
  }

  heldBy(replicaId: string): string[] {
    return [...this.holder].filter(([, holder]) => holder === replicaId).map(([sessionId]) => sessionId);
  }
}

/** A TCP relay in front of NATS: `cut()` drops the replica off the network while the others stay on. */
class Relay {
  private readonly sockets = new Set<net.Socket>();
  private cutOff = false;
  private constructor(private readonly server: net.Server, readonly port: number) {}

  static async start(): Promise<Relay> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const relay = new Relay(server, (server.address() as net.AddressInfo).port);
    server.on('connection', (client) => relay.pipe(client));
    return relay;
  }

  cut(): void {
    this.cutOff = true;
    for (const socket of this.sockets) socket.destroy();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private pipe(client: net.Socket): void {
    if (this.cutOff) return void client.destroy();
    const upstream = net.connect(4222, '127.0.0.1');
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  }
}

interface Replica {
  id: string;
  ownership: LeasedOwnership;
  directory: ReplicaDirectory;
  connection: NatsConnection;
  relay: Relay;
}

describe('sessions shared by replicas through leases in NATS JetStream KV', () => {
  const suffix = randomBytes(4).toString('hex');
  let buckets: { replicasBucket: string; ownersBucket: string };
  let testNumber = 0;
  // Buckets of each test's own: nothing one test wrote (a lease, an owner) can reach the next.
  beforeEach(() => {
    testNumber += 1;
    buckets = { replicasBucket: `sb_test_replicas_${suffix}_${testNumber}`, ownersBucket: `sb_test_owners_${suffix}_${testNumber}` };
  });
  const replicas: Replica[] = [];
  let network: Network;
  /** Sessions the read model says are live (connected), with their accounts. */
  let liveOnRecord: Map<string, string>;

  afterEach(async () => {
    for (const r of replicas.splice(0)) {
      await r.ownership.stop();
      await r.directory.close();
      await r.connection.close().catch(() => undefined);
      await r.relay.close();
    }
    const admin = await connect({ servers: NATS });
    const kvm = new Kvm(admin);
    for (const name of Object.values(buckets)) await (await kvm.open(name)).destroy();
    await admin.close();
  });

  async function startReplica(id: string, maxSessions: number | null = null): Promise<Replica> {
    const relay = await Relay.start();
    // No reconnects: a cut replica stays cut, as one whose network is gone.
    const connection = await connect({ servers: `127.0.0.1:${relay.port}`, maxReconnectAttempts: 0 });
    const directory = await ReplicaDirectory.open(connection, buckets);
    const local: LocalSessions = {
      adopt: async (sessionId) => {
        if (!liveOnRecord.has(sessionId)) return directory.release(sessionId);
        network.open(sessionId, id);
      },
      letGo: async (sessionId) => network.close(sessionId, id),
      cutOff: async (sessionId) => network.close(sessionId, id),
      held: () => network.heldBy(id),
      online: (sessionId) => network.holder.get(sessionId) === id,
      live: () => [...liveOnRecord].map(([sessionId, accountId]) => ({ sessionId, accountId })),
      isLive: (sessionId) => liveOnRecord.has(sessionId),
      restoreAll: async () => undefined,
    };
    const ownership = new LeasedOwnership({ replicaId: id, directory, local, maxSessions, logger, tickMs: 100, rebalanceEveryMs: 200 });
    await ownership.start();
    const replica = { id, ownership, directory, connection, relay };
    replicas.push(replica);
    return replica;
  }

  async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<number> {
    const started = performance.now();
    while (!condition()) {
      if (performance.now() - started > timeoutMs) throw new Error(`not within ${timeoutMs} ms: ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return performance.now() - started;
  }

  async function createSessions(count: number): Promise<string[]> {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const sessionId = `ses_${suffix}${String(i).padStart(3, '0')}`;
      const placedOn = replicas[0]!.ownership.placeNew();
      const owner = placedOn === 'self' ? replicas[0]! : replicas.find((r) => r.id === placedOn)!;
      // As the connection manager does: the session is recorded (live) only once its owner record is
      // written, so no other replica sees a live session without an owner meanwhile.
      await owner.ownership.claimNew(sessionId, 'acc_1', async () => {
        liveOnRecord.set(sessionId, 'acc_1');
        network.open(sessionId, owner.id);
      });
      ids.push(sessionId);
    }
    return ids;
  }

  it('places 30 sessions evenly over 3 replicas, and a dead replica\'s sessions move to the survivors within the lease, never held twice', async () => {
    network = new Network();
    liveOnRecord = new Map();
    const [a, b, c] = [await startReplica('rep_a'), await startReplica('rep_b'), await startReplica('rep_c')];
    await until(() => a.directory.replicas.size === 3, 2_000, 'every replica sees the others');
    const sessions = await createSessions(30);
    expect([a, b, c].map((r) => network.heldBy(r.id).length)).toEqual([10, 10, 10]);

    // Death without a word: its timers stop and its connection goes; its lease is not removed.
    const victims = network.heldBy(c.id);
    await c.ownership.stop();
    c.relay.cut();
    for (const sessionId of victims) network.close(sessionId, c.id);
    const took = await until(() => victims.every((id) => [a.id, b.id].includes(network.holder.get(id) ?? '')), LEASE_TTL_MS + 4_000, 'survivors hold the victim\'s sessions');
    expect(took).toBeLessThan(LEASE_TTL_MS + 4_000);
    expect(network.overlaps).toEqual([]);
    expect(sessions.every((id) => network.holder.has(id))).toBe(true);
    expect([a, b].map((r) => network.heldBy(r.id).length).sort()).toEqual([15, 15]);
  }, 30_000);

  it('a replica cut off from NATS closes its connections before its lease can expire for the others', async () => {
    network = new Network();
    liveOnRecord = new Map();
    const [a, b] = [await startReplica('rep_a'), await startReplica('rep_b')];
    await until(() => a.directory.replicas.size === 2 && b.directory.replicas.size === 2, 2_000, 'both replicas see each other');
    await createSessions(6);
    const cutOff = network.heldBy(b.id);
    expect(cutOff.length).toBe(3);
    const cutAt = performance.now();
    b.relay.cut();
    // b still "reaches WhatsApp" (its fake network): only its own fencing closes the connections.
    const fencedAfter = await until(() => network.heldBy(b.id).length === 0, LEASE_TTL_MS + 2_000, 'the cut-off replica fenced itself');
    expect(fencedAfter).toBeLessThan(LEASE_TTL_MS);
    expect(fencedAfter).toBeGreaterThanOrEqual(LEASE_TTL_MS - FENCE_MARGIN_MS - 1_100);
    await until(() => cutOff.every((id) => network.holder.get(id) === a.id), LEASE_TTL_MS + 4_000, 'the survivor took the sessions over');
    // Not before the lease could have run out in the survivor's eyes (renewed at most 1 s before the cut).
    expect(performance.now() - cutAt).toBeGreaterThanOrEqual(LEASE_TTL_MS - 1_500);
    expect(network.overlaps).toEqual([]);
  }, 30_000);

  it('a joining replica gets sessions gradually, each handed over cleanly; a draining one hands all of its own over', async () => {
    network = new Network();
    liveOnRecord = new Map();
    const a = await startReplica('rep_a');
    await createSessions(12);
    expect(network.heldBy(a.id).length).toBe(12);
    const b = await startReplica('rep_b');
    await until(() => network.heldBy(b.id).length === 6, 10_000, 'rebalanced to 6 and 6');
    expect(network.heldBy(a.id).length).toBe(6);
    expect(network.overlaps).toEqual([]);

    await b.ownership.drain();
    await until(() => network.heldBy(a.id).length === 12, 5_000, 'the draining replica handed its sessions back');
    expect(network.heldBy(b.id)).toEqual([]);
    expect(network.overlaps).toEqual([]);
  }, 30_000);

  it('a replica that ends a session it no longer owns leaves the new owner\'s record alone', async () => {
    network = new Network();
    liveOnRecord = new Map();
    const [a, b] = [await startReplica('rep_a'), await startReplica('rep_b')];
    await until(() => a.directory.replicas.size === 2 && b.directory.replicas.size === 2, 2_000, 'both replicas see each other');
    const [sessionId] = await createSessions(1);
    const owner = network.holder.get(sessionId!) === a.id ? a : b;
    const other = owner === a ? b : a;
    // The other replica takes it over (as after judging the owner dead) before the old owner's end.
    await until(() => other.directory.owners.has(sessionId!), 2_000, 'the record reached the other replica');
    const { record, revision } = other.directory.owners.get(sessionId!)!;
    expect(await other.directory.claim(sessionId!, { ...record, replicaId: other.id }, revision)).toBe(true);
    await until(() => owner.directory.owners.get(sessionId!)?.record.replicaId === other.id, 2_000, 'the old owner saw the takeover');
    await owner.ownership.release(sessionId!);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(other.directory.owners.get(sessionId!)?.record.replicaId).toBe(other.id);
    expect(owner.directory.owners.get(sessionId!)?.record.replicaId).toBe(other.id);
  }, 30_000);

  it('never takes more sessions than its cap', async () => {
    network = new Network();
    liveOnRecord = new Map();
    const a = await startReplica('rep_a', 4);
    const b = await startReplica('rep_b', 4);
    await until(() => a.directory.replicas.size === 2, 2_000, 'both replicas see each other');
    await createSessions(8);
    expect([network.heldBy(a.id).length, network.heldBy(b.id).length]).toEqual([4, 4]);
    expect(a.ownership.placeNew()).toBe('full');
  }, 30_000);
});
