import { createHash } from 'node:crypto';
import { ApiError } from '@switchboard/contracts';
import type { MediaBytesRef } from '@switchboard/contracts';
import type { BlobStore } from '@switchboard/blob-store';

/**
 * Where a media send's bytes come from: inline base64 in the command, or the media blob store
 * the messaging service wrote them to (a folder of the data dir embedded, the NATS Object Store
 * distributed). The store is opened on the first blob send, so a deployment that never sends
 * media by reference does not need JetStream.
 */
export class MediaSource {
  private store: Promise<BlobStore> | undefined;

  constructor(private readonly open: () => Promise<BlobStore>) {}

  /** The bytes, verified against the sha256 the message recorded. */
  async bytes(ref: MediaBytesRef | undefined, sha256: string): Promise<Uint8Array> {
    if (ref === undefined) throw new ApiError('INTERNAL_ERROR', 'A media message arrived without its bytes.');
    const bytes = ref.kind === 'inline' ? Buffer.from(ref.base64, 'base64') : await this.fromStore(ref.sha256);
    if (createHash('sha256').update(bytes).digest('hex') !== sha256) {
      throw new ApiError('INTERNAL_ERROR', 'The media bytes do not match their recorded sha256.');
    }
    return bytes;
  }

  /** Stores received media: its sha256, the name the messaging service and the gateway read it by. */
  async put(bytes: Uint8Array): Promise<string> {
    return (await this.openStore()).put(bytes);
  }

  async close(): Promise<void> {
    const store = this.store;
    this.store = undefined;
    await store?.then((s) => s.close()).catch(() => undefined);
  }

  private openStore(): Promise<BlobStore> {
    this.store ??= this.open().catch((error: unknown) => {
      this.store = undefined;
      throw error;
    });
    return this.store;
  }

  private async fromStore(sha256: string): Promise<Uint8Array> {
    const bytes = await (await this.openStore()).get(sha256);
    // Blobs expire 24 h after they were written: a send retried later than that has lost its media.
    if (bytes === null) throw new ApiError('MEDIA_UNREACHABLE', 'The media of this message is no longer stored; send it again.');
    return bytes;
  }
}
