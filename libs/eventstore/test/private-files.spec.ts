import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensurePrivateDir, openEventStore, openSqliteDatabase } from '../src/index.js';

const modeOf = (file: string) => (fs.statSync(file).mode & 0o777).toString(8);
const directories: string[] = [];
function tempDir(): string {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-private-files-'));
  directories.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of directories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
});

// The test process keeps the usual umask (022): the modes must come from the library itself.
describe('files under the data dir are the owner\'s alone', () => {
  it('creates an event store 0600, its -wal and -shm too, in new 0700 folders', async () => {
    const data = tempDir();
    const file = path.join(data, 'sessions', 'nested', 'events.sqlite');
    const store = openEventStore({ sqlitePath: file });
    await store.append('session-ses_1', [{ type: 'SessionCreated', data: {} }], { expectedRevision: 'no_stream' });
    const modes = Object.fromEntries(['', '-wal', '-shm'].map((suffix) => [`events.sqlite${suffix}`, modeOf(`${file}${suffix}`)]));
    expect(modes).toEqual({ 'events.sqlite': '600', 'events.sqlite-wal': '600', 'events.sqlite-shm': '600' });
    expect([modeOf(path.join(data, 'sessions')), modeOf(path.dirname(file))]).toEqual(['700', '700']);
    await store.close();
  });

  it('narrows a database, its leftover -wal and its folder that an older version left readable by all', () => {
    const folder = path.join(tempDir(), 'sessions');
    fs.mkdirSync(folder, { mode: 0o755 });
    fs.chmodSync(folder, 0o755);
    const file = path.join(folder, 'chat-credentials.sqlite');
    openSqliteDatabase(file, 'CREATE TABLE t (x)').close();
    for (const [name, mode] of [[file, 0o644], [folder, 0o755]] as const) fs.chmodSync(name, mode);
    fs.writeFileSync(`${file}-wal`, '', { mode: 0o644 });
    fs.chmodSync(`${file}-wal`, 0o644);
    ensurePrivateDir(folder);
    const db = openSqliteDatabase(file, '');
    expect([modeOf(folder), modeOf(file), modeOf(`${file}-wal`)]).toEqual(['700', '600', '600']);
    db.close();
  });
});
