import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { processMetrics } from '@switchboard/telemetry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OutboxDelivery, OutboxEntry } from './messaging-outbox.js';
import { SqliteMessagingOutbox } from './sqlite-messaging-outbox.js';

const receipt = (n: number): OutboxEntry => ({
  subject: 'recordReceipt',
  command: { accountId: 'acc_1', sessionId: 'ses_1', networkMessageId: `3EB0${n}`, receipt: 'delivered', at: '2026-01-01T00:00:00.000Z' },
});

describe('SQLite outbox: a delivered entry costs no commit of its own', () => {
  let dir: string;
  let file: string;
  let outbox: SqliteMessagingOutbox;

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'sb-sqlite-outbox-'));
    file = path.join(dir, 'messaging-outbox.sqlite');
    outbox = new SqliteMessagingOutbox(file);
  });
  afterEach(async () => {
    await outbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const commits = async () =>
    (await processMetrics().sqliteTransactions.get()).values.find((v) => v.labels.database === `${path.basename(dir)}/messaging-outbox.sqlite`)?.value ?? 0;
  /** The rows another connection sees in the file (what a restart would send again). */
  const rowsInFile = () => {
    const other = new DatabaseSync(file, { readOnly: true });
    try {
      return (other.prepare('SELECT COUNT(*) AS n FROM messaging_outbox').get() as { n: number }).n;
    } finally {
      other.close();
    }
  };
  const takeOne = async (): Promise<OutboxDelivery> => {
    for await (const delivery of outbox.take(1, new AbortController().signal)) return delivery;
    throw new Error('nothing handed out');
  };

  it('removes a delivered entry in the commit of the next add', async () => {
    const before = await commits();
    await outbox.add(receipt(1));
    (await takeOne()).done();
    expect(await outbox.backlog()).toBe(0);
    await outbox.add(receipt(2));

    expect(await commits()).toBe(before + 2);
    expect(rowsInFile()).toBe(1);
    expect(await outbox.backlog()).toBe(1);
  });

  it('removes a delivered entry on its own when no add follows, within a second or so, and at close', async () => {
    await outbox.add(receipt(1));
    await outbox.add(receipt(2));
    (await takeOne()).done();
    expect(rowsInFile()).toBe(2);
    const deadline = Date.now() + 5_000;
    while (rowsInFile() !== 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(rowsInFile()).toBe(1);

    (await takeOne()).drop();
    await outbox.close();
    expect(rowsInFile()).toBe(0);
  });

  it('writes a receipt whose commit a failing removal shares, and the removal once it can', async () => {
    await outbox.add(receipt(1));
    (await takeOne()).done();
    // Another connection makes every deletion fail for a while.
    const other = new DatabaseSync(file);
    other.exec(`CREATE TRIGGER refuse_deletes BEFORE DELETE ON messaging_outbox BEGIN SELECT RAISE(ABORT, 'no deletes now'); END`);
    try {
      await outbox.add(receipt(2));
      expect(rowsInFile()).toBe(2);
      expect(await outbox.backlog()).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 1_200)); // the removal's own attempt fails too
      expect(rowsInFile()).toBe(2);
    } finally {
      other.exec('DROP TRIGGER refuse_deletes');
      other.close();
    }
    const deadline = Date.now() + 5_000;
    while (rowsInFile() !== 1 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(rowsInFile()).toBe(1);
    expect(await outbox.backlog()).toBe(1);
  });
});
