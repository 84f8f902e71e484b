import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inImmediateTransaction, inReadTransaction, openSqliteDatabase } from '../src/index.js';

describe('inReadTransaction', () => {
  let directory: string;
  let file: string;
  let db: DatabaseSync;
  let writer: DatabaseSync;
  beforeEach(() => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-read-transaction-'));
    file = path.join(directory, 'rows.sqlite');
    db = openSqliteDatabase(file, 'CREATE TABLE rows (n INTEGER NOT NULL)');
    writer = openSqliteDatabase(file, '');
  });
  afterEach(() => {
    writer.close();
    db.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  const count = () => (db.prepare('SELECT count(*) AS n FROM rows').get() as { n: number }).n;
  const insertElsewhere = () => inImmediateTransaction(writer, () => writer.prepare('INSERT INTO rows (n) VALUES (1)').run());

  it('reads one snapshot: a commit by another connection between its reads is seen by neither', () => {
    const seen = inReadTransaction(db, () => {
      const before = count();
      insertElsewhere();
      return [before, count()];
    });
    expect(seen).toEqual([0, 0]);
    // Without it, each statement reads the latest commit.
    const apart = [count(), (insertElsewhere(), count())];
    expect(apart).toEqual([1, 2]);
    expect(db.isTransaction).toBe(false);
  });

  it('ends its transaction when the work throws, and runs inside a transaction already open', () => {
    expect(() => inReadTransaction(db, () => { count(); throw new Error('broken read'); })).toThrow('broken read');
    expect(db.isTransaction).toBe(false);
    inImmediateTransaction(db, () => {
      db.prepare('INSERT INTO rows (n) VALUES (2)').run();
      // The surrounding write's own row is seen, and its transaction is left to it.
      expect(inReadTransaction(db, count)).toBe(1);
      expect(db.isTransaction).toBe(true);
    });
    expect(count()).toBe(1);
  });
});
