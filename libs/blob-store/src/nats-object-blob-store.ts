import { connect } from '@nats-io/transport-node';
import { natsServiceConnectionOptions } from '@switchboard/bus';
import type { NatsConnection } from '@nats-io/transport-node';
import { Objm } from '@nats-io/obj';
import type { ObjectStore } from '@nats-io/obj';
import { assertSha256, sha256Hex, verified } from './blob-store.js';
import type { BlobStore } from './blob-store.js';

export interface NatsObjectBlobStoreOptions {
  /** NATS servers (`SWITCHBOARD_NATS_URL`), comma-separated. */
  servers: string;
  /** Object Store bucket; every service of one deployment must name the same. */
  bucket?: string;
  /** Bucket TTL: blobs expire this long after their last put. Only applied when the bucket is created. */
  ttlMs?: number;
  /** Connection name, shown by the server's monitoring. */
  name?: string;
}

export const DEFAULT_BUCKET = 'switchboard-media';
export const DEFAULT_BLOB_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * Blobs in a NATS JetStream Object Store bucket (distributed mode): every replica of every service
 * reads what any other wrote. Object names are the SHA-256 of the bytes. Needs a JetStream-enabled
 * server (`nats-server -js`); works with nats-server 2.9.
 */
export class NatsObjectBlobStore implements BlobStore {
  private constructor(
    private readonly connection: NatsConnection,
    private readonly bucket: ObjectStore,
    private readonly ownsConnection: boolean,
  ) {}

  static async connect(options: NatsObjectBlobStoreOptions): Promise<NatsObjectBlobStore> {
    const connection = await connect(natsServiceConnectionOptions(options.servers, options.name ?? 'blob-store'));
    try {
      return await NatsObjectBlobStore.onConnection(connection, options, true);
    } catch (error) {
      await connection.close();
      throw error;
    }
  }

  /** Uses a connection the caller owns (and closes). */
  static async onConnection(
    connection: NatsConnection,
    options: Omit<NatsObjectBlobStoreOptions, 'servers'> = {},
    ownsConnection = false,
  ): Promise<NatsObjectBlobStore> {
    const ttlMs = options.ttlMs ?? DEFAULT_BLOB_TTL_MS;
    // create() opens the bucket when it exists already, so concurrent starters agree.
    const bucket = await new Objm(connection).create(options.bucket ?? DEFAULT_BUCKET, { ttl: ttlMs * 1_000_000 });
    return new NatsObjectBlobStore(connection, bucket, ownsConnection);
  }

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    // Always written again: a put restarts the blob's TTL, which a reader may be counting on.
    await this.bucket.putBlob({ name: sha256 }, bytes);
    return sha256;
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    assertSha256(sha256);
    const bytes = await this.bucket.getBlob(sha256);
    return bytes === null ? null : verified(sha256, bytes);
  }

  async delete(sha256: string): Promise<boolean> {
    assertSha256(sha256);
    const info = await this.bucket.info(sha256);
    // A deleted object keeps a tombstone whose info says `deleted`.
    if (info === null || info.deleted) return false;
    await this.bucket.delete(sha256);
    return true;
  }

  async close(): Promise<void> {
    if (this.ownsConnection) await this.connection.close();
  }
}
