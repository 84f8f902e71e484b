import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OtherWriters } from '../src/sqlite/other-writers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The report of a write to the `-wal` file and the commit becoming visible are two steps: here they
 * are pulled apart on purpose. The watched name (`watched.sqlite-wal`) is written by hand, and the
 * commit lands on the database whose version is read 60 ms later, where no report follows it
 * (as when a writer is descheduled between writing its frames and publishing them).
 */
describe('OtherWriters', () => {
  let directory: string;
  let reader: DatabaseSync;
  let writer: DatabaseSync;
  let watcher: OtherWriters;
  let commits = 0;
  const report = () => fs.appendFileSync(path.join(directory, 'watched.sqlite-wal'), 'frames');
  const commit = () => writer.exec('INSERT INTO t VALUES (1)');

  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-other-writers-'));
    const file = path.join(directory, 'versions.sqlite');
    reader = new DatabaseSync(file);
    writer = new DatabaseSync(file);
    writer.exec('CREATE TABLE t (n INTEGER)');
    commits = 0;
    watcher = new OtherWriters(path.join(directory, 'watched.sqlite'), reader, () => (commits += 1));
  });
  afterEach(() => {
    watcher.close();
    writer.close();
    reader.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('sees a commit that becomes visible after the write was reported', async () => {
    report();
    await sleep(60);
    commit();
    await expect.poll(() => commits, { timeout: 1_000, interval: 10 }).toBe(1);
  });

  it('looks again for a report that came while an earlier one was still being looked at', async () => {
    report();
    await sleep(300);
    // The first report's looks end about 530 ms after it; this one's commit shows after that.
    report();
    await sleep(450);
    commit();
    await expect.poll(() => commits, { timeout: 1_500, interval: 10 }).toBe(1);
  });

  it('tells nothing when a report brings no commit, nor after it is closed', async () => {
    report();
    await sleep(700);
    expect(commits).toBe(0);
    report();
    watcher.close();
    commit();
    await sleep(700);
    expect(commits).toBe(0);
  });
});
