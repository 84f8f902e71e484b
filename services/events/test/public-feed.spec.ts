import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PublicEvent } from '@switchboard/contracts';
import { loadConfig } from '@switchboard/service-kit';
import { openDispatchDatabase } from '../src/store/database.js';
import { PublicFeed } from '../src/store/public-feed.js';

const ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const at = (n: number, timestamp: string): PublicEvent => ({ id: `evt_${String(n).padStart(26, '0')}`, type: 'webhook.test', timestamp, data: { webhookId: 'wh' } });

describe('the replay window of the public feed (a real SQLite file)', () => {
  let dataDir: string;
  let db: DatabaseSync;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sb-public-feed-'));
    db = openDispatchDatabase(loadConfig({ SWITCHBOARD_DATA_DIR: dataDir }));
  });
  afterEach(() => {
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('takes bounds written without milliseconds as the instants they name', () => {
    const feed = new PublicFeed(db);
    feed.record(ACCOUNT, at(1, '2026-11-21T09:59:59.999Z'));
    feed.record(ACCOUNT, at(2, '2026-11-21T10:00:00.120Z'));
    feed.record(ACCOUNT, at(3, '2026-11-21T10:05:00.000Z'));
    feed.record(ACCOUNT, at(4, '2026-11-21T10:05:00.500Z'));
    const ids = (since: string, until: string) => feed.window(ACCOUNT, since, until, ['webhook.test'], { afterSeq: 0, untilSeq: feed.head(), limit: 100 }).map((r) => r.event.id);
    expect(ids('2026-11-21T10:00:00Z', '2026-11-21T10:05:00Z')).toEqual([at(2, '').id, at(3, '').id]);
    expect(ids('2026-11-21T10:00:00.000Z', '2026-11-21T10:05:00.000Z')).toEqual([at(2, '').id, at(3, '').id]);
  });

  it('reads a window a page at a time, up to the head it was given (what is recorded later is not in it)', () => {
    const feed = new PublicFeed(db);
    for (let n = 1; n <= 7; n++) feed.record(ACCOUNT, at(n, `2026-11-21T10:00:0${n}.000Z`));
    const page = { afterSeq: 0, untilSeq: feed.head(), limit: 3 };
    feed.record(ACCOUNT, at(8, '2026-11-21T10:00:08.000Z'));
    const read: string[][] = [];
    for (;;) {
      const rows = feed.window(ACCOUNT, '2026-11-21T10:00:00Z', '2026-11-21T11:00:00Z', ['webhook.test'], page);
      read.push(rows.map((r) => r.event.id));
      if (rows.length < page.limit) break;
      page.afterSeq = rows[rows.length - 1]!.seq;
    }
    const id = (n: number) => at(n, '').id;
    expect(read).toEqual([[id(1), id(2), id(3)], [id(4), id(5), id(6)], [id(7)]]);
  });
});
