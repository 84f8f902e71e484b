import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { assertSha256, sha256Hex, verified } from './blob-store.js';
import type { BlobStore } from './blob-store.js';

/**
 * Blobs as files of one folder (embedded mode: `<dataDir>/media`), fanned out by the first two
 * hex digits. Writes go to a temporary name and are renamed into place, so a reader (or a crash)
 * never sees half a file, and two writers of the same bytes both succeed.
 */
export class FolderBlobStore implements BlobStore {
  constructor(readonly dir: string) {}

  async put(bytes: Uint8Array): Promise<string> {
    const sha256 = sha256Hex(bytes);
    const path = this.pathOf(sha256);
    if (await exists(path)) {
      // Refresh the age the retention sweep judges by: the blob is wanted again.
      const now = new Date();
      await utimes(path, now, now);
      return sha256;
    }
    // Owner-only, like everything in the data dir: these are the users' pictures and documents.
    await mkdir(join(this.dir, sha256.slice(0, 2)), { recursive: true, mode: 0o700 });
    const temporary = `${path}.${randomUUID()}.tmp`;
    await writeFile(temporary, bytes, { mode: 0o600 });
    await rename(temporary, path);
    return sha256;
  }

  async get(sha256: string): Promise<Uint8Array | null> {
    assertSha256(sha256);
    try {
      return verified(sha256, await readFile(this.pathOf(sha256)));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async delete(sha256: string): Promise<boolean> {
    assertSha256(sha256);
    try {
      await unlink(this.pathOf(sha256));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /**
   * Deletes blobs (and abandoned temporary files) not written or re-put for `maxAgeMs`: the
   * folder's counterpart of the object store bucket's TTL. Returns how many files it removed.
   */
  async sweep(maxAgeMs: number, now: Date = new Date()): Promise<number> {
    let removed = 0;
    for (const shard of await listOrEmpty(this.dir)) {
      const shardDir = join(this.dir, shard);
      for (const name of await listOrEmpty(shardDir)) {
        const path = join(shardDir, name);
        const info = await stat(path).catch(() => null);
        if (info === null || now.getTime() - info.mtimeMs < maxAgeMs) continue;
        await rm(path, { force: true });
        removed++;
      }
    }
    return removed;
  }

  async close(): Promise<void> {}

  private pathOf(sha256: string): string {
    assertSha256(sha256);
    return join(this.dir, sha256.slice(0, 2), sha256);
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: unknown) => {
      if (isNotFound(error)) return false;
      throw error;
    },
  );
}

async function listOrEmpty(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}

function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'ENOENT';
}
