export { BlobIntegrityError, assertSha256, sha256Hex } from './blob-store.js';
export type { BlobStore } from './blob-store.js';
export { FolderBlobStore } from './folder-blob-store.js';
export { LazyBlobStore } from './lazy-blob-store.js';
export { DEFAULT_BLOB_TTL_MS, DEFAULT_BUCKET, NatsObjectBlobStore } from './nats-object-blob-store.js';
export type { NatsObjectBlobStoreOptions } from './nats-object-blob-store.js';
export { lazyBlobStore, mediaFolder, openBlobStore } from './open-blob-store.js';
export type { BlobStoreConfig } from './open-blob-store.js';
