import { EventEmitter } from 'node:events';
import type { Client } from 'pg';
import { describe, expect, it } from 'vitest';
import { announcementPayload, readAnnouncement } from '../src/postgres/append-announcement.js';
import { PostgresListener } from '../src/postgres/postgres-listener.js';

/** The LISTEN connection's side the listener uses: it connects, listens, and hears notifications. */
class FakeListenClient extends EventEmitter {
  readonly queries: string[] = [];
  async connect(): Promise<void> {}
  async query(text: string): Promise<void> {
    this.queries.push(text);
  }
  async end(): Promise<void> {}
  announce(payload: string): void {
    this.emit('notification', { channel: 'eventstore_quota', payload });
  }
}

async function listening(origin = 'this-store') {
  const client = new FakeListenClient();
  const listener = new PostgresListener(() => client as unknown as Client, 'eventstore_quota', 1_000, origin);
  await listener.listening();
  return { client, notifier: listener.notifier };
}

describe('append announcements', () => {
  it('carry the origin and the categories, and read back as written', () => {
    const payload = announcementPayload({ origin: 'o-1', categories: ['usage', "it's"] });
    expect(readAnnouncement(payload)).toEqual({ origin: 'o-1', categories: ['usage', "it's"] });
  });

  it('name no category when they would not fit in a NOTIFY payload, and say nothing for a payload of an older build', () => {
    const many = Array.from({ length: 2_000 }, (_, i) => `category${i}`);
    const payload = announcementPayload({ origin: 'o-1', categories: many });
    expect(Buffer.byteLength(payload)).toBeLessThan(8_000);
    expect(readAnnouncement(payload)).toEqual({ origin: 'o-1', categories: undefined });
    expect(readAnnouncement('12')).toBeUndefined();
    expect(readAnnouncement('{"origin":1}')).toBeUndefined();
    expect(readAnnouncement('{not json')).toBeUndefined();
  });
});

describe('PostgresListener', () => {
  it("wakes only the categories another store's commit names", async () => {
    const { client, notifier } = await listening();
    expect(client.queries).toEqual(['LISTEN "eventstore_quota"']);
    const [usage, account, all] = [notifier.version('usage'), notifier.version('account'), notifier.version()];
    client.announce(announcementPayload({ origin: 'another-store', categories: ['usage'] }));
    expect(notifier.version('usage')).toBeGreaterThan(usage);
    expect(notifier.version('account')).toBe(account);
    expect(notifier.version()).toBeGreaterThan(all);
  });

  it('skips the echo of its own store’s commits, which woke their categories when they returned', async () => {
    const { client, notifier } = await listening('this-store');
    const before = notifier.version();
    client.announce(announcementPayload({ origin: 'this-store', categories: ['usage'] }));
    expect(notifier.version()).toBe(before);
  });

  it('wakes every category on an announcement that names none (or that an older build sent)', async () => {
    const { client, notifier } = await listening();
    const account = notifier.version('account');
    client.announce('41');
    expect(notifier.version('account')).toBeGreaterThan(account);
    const again = notifier.version('account');
    client.announce(announcementPayload({ origin: 'another-store', categories: undefined }));
    expect(notifier.version('account')).toBeGreaterThan(again);
  });
});
