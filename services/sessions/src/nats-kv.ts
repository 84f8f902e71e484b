import { natsServiceConnectionOptions } from '@switchboard/bus';
import { Kvm } from '@nats-io/kv';
import type { KV, KvOptions } from '@nats-io/kv';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';

/**
 * A connection of this service's own to `SWITCHBOARD_NATS_URL` for its JetStream KV buckets, used
 * when the caller passes none. It reconnects for as long as the process lives: a NATS restart
 * must not leave the credentials or the sent log unreachable for good.
 */
export async function connectNats(natsUrl: string, name: string): Promise<NatsConnection> {
  return connect(natsServiceConnectionOptions(natsUrl, name));
}

/**
 * Creates the bucket, or opens it when it exists (its stored configuration wins). Replicas starting
 * together may both find no bucket and both create it: the server accepts the same configuration
 * twice, and should one creation still lose the race, the second attempt opens the winner's bucket.
 */
export async function openKvBucket(connection: NatsConnection, bucket: string, options: Partial<KvOptions>): Promise<KV> {
  const kvm = new Kvm(connection);
  try {
    return await kvm.create(bucket, { ...options }).catch(() => kvm.create(bucket, { ...options }));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`JetStream KV bucket ${bucket} could not be opened (the distributed mode needs NATS with JetStream, nats-server -js): ${reason}`, { cause: error });
  }
}

/** One token of a KV key: a validated id (`ses_…`, `acc_…`, `msg_…`), never a dot or a wildcard. */
export function kvToken(value: string, what: string): string {
  if (!/^[-\w=]+$/.test(value)) throw new Error(`${what} cannot be a KV key token: ${JSON.stringify(value)}`);
  return value;
}

/** The KV key alphabet for any string, collision-free: `k` then base64url (so an empty string is `k`). */
export function encodedKvToken(value: string): string {
  return `k${Buffer.from(value, 'utf8').toString('base64url')}`;
}
