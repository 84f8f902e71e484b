import type { BlobStore } from './blob-store.js';

/**
 * Opens the real store on first use, and again on the next use after a failed open. A service
 * then starts (and sends texts) while the media store is unreachable, e.g. a NATS server without
 * JetStream; only media operations fail, with the open error.
 */
export class LazyBlobStore implements BlobStore {
  private opened: Promise<BlobStore> | undefined;

  constructor(private readonly open: () => Promise<BlobStore>) {}

  async put(bytes: Uint8Array): Promise<string> {
    return (await this.store()).put(bytes);
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    return (await this.store()).get(sha256);
  }

  async delete(sha256: string): Promise<boolean> {
    return (await this.store()).delete(sha256);
  }

  async close(): Promise<void> {
    const opened = this.opened;
    this.opened = undefined;
    await opened?.then((store) => store.close()).catch(() => undefined);
  }

  private store(): Promise<BlobStore> {
    this.opened ??= this.open().catch((error: unknown) => {
      this.opened = undefined;
      throw error;
    });
    return this.opened;
  }
}
