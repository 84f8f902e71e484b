import type { KV, KvWatchEntry } from '@nats-io/kv';
import type { NatsConnection, QueuedIterator } from '@nats-io/transport-node';
import { openKvBucket } from '../nats-kv.js';
import { LEASE_TTL_MS, RENEW_EVERY_MS } from './lease-rules.js';
import type { ReplicaView } from './lease-rules.js';

/** What a replica writes about itself on every renewal. */
export type ReplicaRecord = Omit<ReplicaView, 'lastSeenMs'>;

/** Who holds a session's connection: written with a revision check, so one claim wins. */
export interface OwnerRecord {
  replicaId: string;
  accountId: string;
}

export interface OwnerEntry {
  record: OwnerRecord;
  /** The KV revision to name in the next revision-checked update. */
  revision: number;
}

export interface ReplicaDirectoryOptions {
  replicasBucket?: string;
  ownersBucket?: string;
  /** Monotonic clock in ms (tests may drive it). */
  now?: () => number;
}

export const REPLICAS_BUCKET = 'sb_sessions_replicas';
/** The replicas bucket's TTL: a record not rewritten for this long is gone from the bucket. */
const FORGET_AFTER_MS = 60_000;
export const OWNERS_BUCKET = 'sb_sessions_owners';

/**
 * The shared directory of sessions replicas, in two NATS JetStream KV buckets: one record per
 * replica (its lease, renewed every second: liveness is judged by when each process last SAW it
 * written, on its own monotonic clock, so no two clocks are compared), and one record per live
 * session naming its owner. Both buckets are watched: the views below are what this process sees
 * now.
 */
export class ReplicaDirectory {
  readonly replicas = new Map<string, ReplicaView>();
  readonly owners = new Map<string, OwnerEntry>();
  /** When another process's change of an owner record was last seen here (monotonic ms). */
  lastOwnerChangeMs = 0;
  /** When each replica's record last came through the watch (not a write of this process's own). */
  private readonly echoes = new Map<string, number>();
  private readonly watches: QueuedIterator<KvWatchEntry>[] = [];
  private readonly now: () => number;

  private constructor(
    private readonly replicaBucket: KV,
    private readonly ownerBucket: KV,
    options: ReplicaDirectoryOptions,
  ) {
    this.now = options.now ?? (() => performance.now());
  }

  /** Opens (creating when missing) both buckets and resolves once their current contents are loaded. */
  static async open(connection: NatsConnection, options: ReplicaDirectoryOptions = {}): Promise<ReplicaDirectory> {
    // Records of replicas that died long ago expire; a live one rewrites its record every second.
    const replicas = await openKvBucket(connection, options.replicasBucket ?? REPLICAS_BUCKET, { history: 1, ttl: FORGET_AFTER_MS });
    const owners = await openKvBucket(connection, options.ownersBucket ?? OWNERS_BUCKET, { history: 1 });
    const directory = new ReplicaDirectory(replicas, owners, options);
    await Promise.all([
      directory.watch(replicas, (entry) => directory.seeReplica(entry)),
      directory.watch(owners, (entry) => directory.seeOwner(entry)),
    ]);
    return directory;
  }

  /** Writes this replica's lease; resolves once the server stored it. */
  async renew(record: ReplicaRecord): Promise<void> {
    await this.replicaBucket.put(record.replicaId, JSON.stringify(record));
    // Seen by this process at once (its own watch echoes it a moment later).
    this.replicas.set(record.replicaId, { ...record, lastSeenMs: this.now() });
  }

  /** When `replicaId`'s lease was last seen through the watch: how current this view is. */
  echoedAt(replicaId: string): number | undefined {
    return this.echoes.get(replicaId);
  }

  /**
   * Forgets replicas not heard from for a minute: the bucket's TTL expires their records without
   * telling the watch, and each restart on an emptyDir is a new replica id.
   */
  forgetSilent(): void {
    const now = this.now();
    for (const [replicaId, replica] of this.replicas) {
      if (now - replica.lastSeenMs > FORGET_AFTER_MS) {
        this.replicas.delete(replicaId);
        this.echoes.delete(replicaId);
      }
    }
  }

  /** Removes this replica's lease (a clean exit): its sessions are free at once. */
  async leave(replicaId: string): Promise<void> {
    await this.replicaBucket.delete(replicaId);
  }

  /**
   * Names `record.replicaId` the owner of `sessionId`: a new record (`revision` undefined) or an
   * update of the one at `revision`. False when someone else wrote first (nothing changed).
   */
  async claim(sessionId: string, record: OwnerRecord, revision?: number): Promise<boolean> {
    try {
      const written = revision === undefined
        ? await this.ownerBucket.create(sessionId, JSON.stringify(record))
        : await this.ownerBucket.update(sessionId, JSON.stringify(record), revision);
      this.owners.set(sessionId, { record, revision: written });
      return true;
    } catch (error) {
      if (isWrongRevision(error)) return false;
      throw error;
    }
  }

  /**
   * Forgets who owns `sessionId` (the session ended for good): the record at `revision` only, so
   * a record another replica wrote since stays.
   */
  async release(sessionId: string, revision?: number): Promise<void> {
    try {
      await this.ownerBucket.delete(sessionId, revision === undefined ? undefined : { previousSeq: revision });
    } catch (error) {
      if (isWrongRevision(error)) return;
      throw error;
    }
    this.owners.delete(sessionId);
  }

  async close(): Promise<void> {
    for (const watch of this.watches) watch.stop();
  }

  private seeReplica(entry: KvWatchEntry): void {
    if (entry.operation !== 'PUT') {
      this.replicas.delete(entry.key);
      return;
    }
    const record = entry.json<ReplicaRecord>();
    // A record found at start may be old (its replica died a minute ago): it counts as alive only
    // if it is written again soon, as a live replica's is every second.
    const seenMs = entry.isUpdate ? this.now() : this.now() - LEASE_TTL_MS + 2 * RENEW_EVERY_MS;
    this.replicas.set(entry.key, { ...record, lastSeenMs: seenMs });
    if (entry.isUpdate) this.echoes.set(entry.key, this.now());
  }

  private seeOwner(entry: KvWatchEntry): void {
    this.lastOwnerChangeMs = this.now();
    if (entry.operation !== 'PUT') {
      this.owners.delete(entry.key);
      return;
    }
    const known = this.owners.get(entry.key);
    // An older echo of our own write must not roll the view back.
    if (known && known.revision > entry.revision) return;
    this.owners.set(entry.key, { record: entry.json<OwnerRecord>(), revision: entry.revision });
  }

  /** Applies every entry of `bucket` as it changes; resolves once the current values are in. */
  private async watch(bucket: KV, apply: (entry: KvWatchEntry) => void): Promise<void> {
    const iterator = await bucket.watch();
    this.watches.push(iterator);
    let loaded!: () => void;
    const initial = new Promise<void>((resolve) => (loaded = resolve));
    if ((await bucket.status()).values === 0) loaded();
    void (async () => {
      for await (const entry of iterator) {
        apply(entry);
        if (entry.isUpdate || entry.delta === 0) loaded();
      }
    })();
    // A bucket whose only entries are deletions reports values but yields nothing to wait for.
    await Promise.race([initial, new Promise((resolve) => setTimeout(resolve, 2_000))]);
  }
}

/** The server's answer to a create over an existing key or an update at a stale revision. */
function isWrongRevision(error: unknown): boolean {
  const e = error as { name?: unknown; code?: unknown };
  // JetStream's "wrong last sequence" (10071, or 10164 on newer servers): create() over a live key reports it too.
  return e.name === 'JetStreamApiError' && (e.code === 10071 || e.code === 10164);
}
