import { join, resolve } from 'node:path';
import type { BlobStore } from './blob-store.js';
import { FolderBlobStore } from './folder-blob-store.js';
import { LazyBlobStore } from './lazy-blob-store.js';
import { NatsObjectBlobStore } from './nats-object-blob-store.js';

export interface BlobStoreConfig {
  /** `SWITCHBOARD_DATA_DIR`: embedded blobs live in `<dataDir>/media`. */
  dataDir: string;
  /** `SWITCHBOARD_NATS_URL`: when set, the shared Object Store bucket. */
  natsUrl?: string | undefined;
  name?: string;
}

/**
 * The media blob store of the mode: a NATS Object Store bucket when NATS is configured
 * (services in separate processes, maybe on separate hosts), else a folder of the data dir
 * (the embedded default: writer and reader share one process and one disk).
 */
export async function openBlobStore(config: BlobStoreConfig): Promise<BlobStore> {
  if (config.natsUrl) return NatsObjectBlobStore.connect({ servers: config.natsUrl, name: config.name ?? 'blob-store' });
  return new FolderBlobStore(mediaFolder(config.dataDir));
}

/**
 * The same store without connecting yet: the NATS bucket is opened on first use (and again after a
 * failed open), so a service starts, and texts flow, while JetStream is unavailable; only media
 * operations fail meanwhile.
 */
export function lazyBlobStore(config: BlobStoreConfig): BlobStore {
  if (!config.natsUrl) return new FolderBlobStore(mediaFolder(config.dataDir));
  const servers = config.natsUrl;
  return new LazyBlobStore(() => NatsObjectBlobStore.connect({ servers, name: config.name ?? 'blob-store' }));
}

/** `<dataDir>/media`: one folder shared by the services of an embedded deployment. */
export function mediaFolder(dataDir: string): string {
  return join(resolve(dataDir), 'media');
}
