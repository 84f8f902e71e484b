import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { holdReplicaIdentity } from '../src/replicas/replica-identity.js';

describe('the replica id kept in the data dir', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sb-replica-id-'));
    dirs.push(dir);
    return dir;
  };

  it('is the same after a restart on the same data dir, and another one for a second process while the first holds it', () => {
    const dir = dataDir();
    const first = holdReplicaIdentity(dir);
    expect(first).toMatchObject({ replicaId: expect.stringMatching(/^rep_[0-9A-Z]{26}$/), resumed: false });
    const beside = holdReplicaIdentity(dir);
    expect(beside.replicaId).not.toBe(first.replicaId);
    expect(beside.resumed).toBe(false);
    beside.release();
    first.release();
    const restarted = holdReplicaIdentity(dir);
    expect(restarted).toMatchObject({ replicaId: first.replicaId, resumed: true });
    restarted.release();
  });

  it('differs between data dirs', () => {
    const [a, b] = [holdReplicaIdentity(dataDir()), holdReplicaIdentity(dataDir())];
    expect(a.replicaId).not.toBe(b.replicaId);
    a.release();
    b.release();
  });
});
