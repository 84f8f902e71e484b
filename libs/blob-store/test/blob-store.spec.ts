import { mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PrivateNatsServer } from '@switchboard/bus/testing';
import { BlobIntegrityError, FolderBlobStore, LazyBlobStore, NatsObjectBlobStore, openBlobStore, sha256Hex } from '../src/index.js';
import type { BlobStore } from '../src/index.js';

const hello = new TextEncoder().encode('hello');
// sha256("hello"), a well-known vector.
const HELLO_SHA = '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824';

/** The behaviour both adapters promise: content addressing, idempotent put, null when absent. */
function blobStoreContract(name: string, open: () => Promise<BlobStore>): void {
  describe(`${name} blob store`, () => {
    let store: BlobStore;
    beforeAll(async () => {
      store = await open();
    });
    afterAll(async () => {
      await store.close();
    });

    it('names bytes by their SHA-256 and gives them back', async () => {
      expect(await store.put(hello)).toBe(HELLO_SHA);
      expect(Buffer.from((await store.get(HELLO_SHA))!).toString()).toBe('hello');
    });

    it('stores the same bytes twice under one name', async () => {
      const bytes = new TextEncoder().encode('same bytes');
      const [a, b] = await Promise.all([store.put(bytes), store.put(bytes)]);
      expect(a).toBe(b);
      expect(await store.get(a)).toEqual(bytes);
    });

    it('keeps a multi-chunk blob (3 MB) byte for byte', async () => {
      const big = new Uint8Array(3 * 1024 * 1024).map((_, i) => (i * 31) % 251);
      const sha = await store.put(big);
      expect(sha).toBe(sha256Hex(big));
      const back = await store.get(sha);
      expect(back?.length).toBe(big.length);
      expect(sha256Hex(back!)).toBe(sha);
    });

    it('answers null for an unknown blob and after delete', async () => {
      const sha = await store.put(new TextEncoder().encode('to delete'));
      expect(await store.delete(sha)).toBe(true);
      expect(await store.get(sha)).toBeNull();
      expect(await store.delete(sha)).toBe(false);
      expect(await store.get('0'.repeat(64))).toBeNull();
    });

    it('refuses names that are not a SHA-256 (they reach paths and subjects)', async () => {
      await expect(store.get('../../etc/passwd')).rejects.toThrow(TypeError);
      await expect(store.delete('ABC')).rejects.toThrow(TypeError);
    });
  });
}

const folder = mkdtempSync(join(tmpdir(), 'blob-store-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

blobStoreContract('folder', async () => new FolderBlobStore(join(folder, 'contract')));

describe('folder specifics', () => {
  it('detects a corrupted file instead of handing out wrong bytes', async () => {
    const store = new FolderBlobStore(join(folder, 'corrupt'));
    const sha = await store.put(hello);
    writeFileSync(join(folder, 'corrupt', sha.slice(0, 2), sha), 'hellO');
    await expect(store.get(sha)).rejects.toBeInstanceOf(BlobIntegrityError);
  });

  it('sweeps blobs older than the retention, keeps fresh ones and re-put ones', async () => {
    const dir = join(folder, 'sweep');
    const store = new FolderBlobStore(dir);
    const old = await store.put(new TextEncoder().encode('old'));
    const wantedAgain = await store.put(new TextEncoder().encode('wanted again'));
    const fresh = await store.put(new TextEncoder().encode('fresh'));
    const dayAgo = new Date(Date.now() - 25 * 3600_000);
    for (const sha of [old, wantedAgain]) utimesSync(join(dir, sha.slice(0, 2), sha), dayAgo, dayAgo);
    await store.put(new TextEncoder().encode('wanted again'));
    expect(await store.sweep(24 * 3600_000)).toBe(1);
    expect(await store.get(old)).toBeNull();
    expect(await store.get(wantedAgain)).not.toBeNull();
    expect(await store.get(fresh)).not.toBeNull();
  });

  it('opens a folder under the data dir when no NATS URL is configured', async () => {
    const store = await openBlobStore({ dataDir: join(folder, 'data') });
    await store.put(hello);
    expect(readdirSync(join(folder, 'data', 'media', HELLO_SHA.slice(0, 2)))).toEqual([HELLO_SHA]);
  });
});

describe('NATS object store', () => {
  let server: PrivateNatsServer;
  beforeAll(async () => {
    server = await PrivateNatsServer.start({ jetstream: true });
  });
  afterAll(async () => {
    await server.stop({ removeStore: true });
  });

  blobStoreContract('nats object store', () => NatsObjectBlobStore.connect({ servers: server.url, bucket: 'contract' }));

  it('lets a second connection (another process) read what the first wrote', async () => {
    const writer = await openBlobStore({ dataDir: folder, natsUrl: server.url });
    const reader = await openBlobStore({ dataDir: folder, natsUrl: server.url });
    const sha = await writer.put(new TextEncoder().encode('shared media'));
    expect(Buffer.from((await reader.get(sha))!).toString()).toBe('shared media');
    await writer.close();
    await reader.close();
  });

  it('keeps blobs across a server restart (file storage)', async () => {
    const store = await NatsObjectBlobStore.connect({ servers: server.url, bucket: 'durable' });
    const sha = await store.put(hello);
    await store.close();
    await server.stop();
    await server.restart();
    const again = await NatsObjectBlobStore.connect({ servers: server.url, bucket: 'durable' });
    expect(await again.get(sha)).toEqual(hello);
    await again.close();
  });
});

describe('lazy opening', () => {
  it('opens on first use, retries after a failed open, and passes operations through', async () => {
    let opens = 0;
    const lazy = new LazyBlobStore(async () => {
      opens++;
      if (opens === 1) throw new Error('no JetStream');
      return new FolderBlobStore(join(folder, 'lazy'));
    });
    expect(opens).toBe(0);
    await expect(lazy.put(hello)).rejects.toThrow('no JetStream');
    expect(await lazy.put(hello)).toBe(HELLO_SHA);
    expect(await lazy.get(HELLO_SHA)).toEqual(hello);
    expect(opens).toBe(2);
    await lazy.close();
  });
});
