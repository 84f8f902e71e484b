import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteDatabase, TurnBatchedWrites } from '../src/index.js';

describe('TurnBatchedWrites', () => {
  let directory: string;
  let file: string;
  let db: DatabaseSync;
  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-turn-batched-'));
    file = path.join(directory, 'rows.sqlite');
    db = openSqliteDatabase(file, 'CREATE TABLE rows (n INTEGER NOT NULL CHECK (n >= 0))');
  });
  afterEach(() => {
    db.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  /** Rows another connection sees: committed ones only. */
  const committedRows = () => {
    const other = new DatabaseSync(file, { readOnly: true });
    try {
      return (other.prepare('SELECT COUNT(*) AS n FROM rows').get() as { n: number }).n;
    } finally {
      other.close();
    }
  };

  it('calls its committed hook once per commit, after it and before any add resolves', async () => {
    const insert = db.prepare('INSERT INTO rows (n) VALUES (?)');
    const seenAtHook: number[] = [];
    const order: string[] = [];
    const writes = new TurnBatchedWrites<number>(db, (items) => items.forEach((n) => insert.run(n)), () => {
      seenAtHook.push(committedRows());
      order.push('committed');
    });
    await Promise.all([1, 2, 3].map((n) => writes.add(n).then(() => order.push(`added ${n}`))));
    expect(seenAtHook).toEqual([3]);
    expect(order).toEqual(['committed', 'added 1', 'added 2', 'added 3']);
  });

  it('does not call it when the transaction fails', async () => {
    const insert = db.prepare('INSERT INTO rows (n) VALUES (?)');
    let commits = 0;
    const writes = new TurnBatchedWrites<number>(db, (items) => items.forEach((n) => insert.run(n)), () => (commits += 1));
    await expect(Promise.all([writes.add(1), writes.add(-1)])).rejects.toThrow(/CHECK constraint failed/);
    expect(commits).toBe(0);
    expect(committedRows()).toBe(0);
  });
});
