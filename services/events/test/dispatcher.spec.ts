import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PublicEvent } from '@switchboard/contracts';
import { loadConfig } from '@switchboard/service-kit';
import { createLogger } from '@switchboard/telemetry';
import { Dispatcher } from '../src/dispatch/dispatcher.js';
import { openDispatchDatabase } from '../src/store/database.js';
import { DeliveryStore } from '../src/store/deliveries.js';
import type { SealedSecrets } from '../src/store/secrets.js';
import type { WebhookQueries, WebhookRecord } from '../src/webhook/projection.js';

const ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const WEBHOOK = 'wh_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const event = (n: number): PublicEvent => ({ id: `evt_${String(n).padStart(26, '0')}`, type: 'webhook.test', timestamp: new Date(0).toISOString(), data: { webhookId: WEBHOOK } });
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the webhook dispatcher while deliveries wait', () => {
  let dataDir: string;
  let db: DatabaseSync;
  let receiver: Server;
  let received = 0;
  /** Event ids as the receiver got them (the `webhook-id` header). */
  let ids: string[] = [];
  let answer = { status: 500, delayMs: 0 };
  let dispatcher: Dispatcher | undefined;
  /** How often the dispatcher looked the webhook up: per worker it starts, per attempt, per look for due work. */
  let lookups = 0;
  let enabled = true;
  /** The webhook's URL when a test changes it (the receiver's otherwise). */
  let url: string | undefined;

  const start = (deliveries: DeliveryStore): Dispatcher => {
    const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const webhook = (): WebhookRecord => ({
      webhookId: WEBHOOK, accountId: ACCOUNT, url: url ?? receiverUrl, events: ['webhook.test'], description: null, enabled, createdAt: new Date(0).toISOString(),
      secretFingerprint: 'fp', previous: null, deleted: false,
    } as unknown as WebhookRecord);
    const webhooks = { get: () => (lookups++, webhook()) } as unknown as WebhookQueries;
    const secrets = { get: () => `whsec_${Buffer.alloc(24, 7).toString('base64')}` } as unknown as SealedSecrets;
    dispatcher = new Dispatcher({
      deliveries, webhooks, secrets, schedule: [60_000], allowLoopback: true, timeoutMs: 2_000, pollMs: 30_000,
      logger: createLogger({ service: 'test', level: 'silent' }),
    });
    dispatcher.start();
    return dispatcher;
  };

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sb-dispatcher-'));
    db = openDispatchDatabase(loadConfig({ SWITCHBOARD_DATA_DIR: dataDir }));
    received = 0;
    ids = [];
    answer = { status: 500, delayMs: 0 };
    lookups = 0;
    enabled = true;
    url = undefined;
    receiver = createServer((request, response) => {
      received += 1;
      ids.push(String(request.headers['webhook-id']));
      setTimeout(() => response.writeHead(answer.status).end(), answer.delayMs);
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    await dispatcher?.stop();
    dispatcher = undefined;
    await new Promise((resolve) => receiver.close(resolve));
    db.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('sleeps until the retry of a failed head, though a delivery of the same session waits behind it', async () => {
    const deliveries = new DeliveryStore(db);
    deliveries.enqueue(WEBHOOK, ACCOUNT, event(1), 'ses_1', Date.now());
    deliveries.enqueue(WEBHOOK, ACCOUNT, event(2), 'ses_1', Date.now());
    start(deliveries);
    await expect.poll(() => received, { timeout: 5_000 }).toBe(1);
    await pause(200);
    const settled = lookups;
    await pause(1_000);
    // The retry is a minute away, and the delivery behind the head waits for it: nothing to look at.
    expect(received).toBe(1);
    expect(lookups).toBe(settled);
  });

  it('leaves a disabled webhook alone until it is enabled again', async () => {
    const deliveries = new DeliveryStore(db);
    enabled = false;
    deliveries.enqueue(WEBHOOK, ACCOUNT, event(1), 'ses_1', Date.now());
    const running = start(deliveries);
    await pause(200);
    const settled = lookups;
    await pause(1_000);
    expect(received).toBe(0);
    expect(lookups).toBe(settled);
    enabled = true;
    running.kick(WEBHOOK);
    await expect.poll(() => received, { timeout: 5_000 }).toBe(1);
  });

  it("keeps its other sessions' lanes to themselves when one lane fails: nothing is sent twice", async () => {
    answer = { status: 204, delayMs: 150 };
    const deliveries = new DeliveryStore(db);
    const succeeded = deliveries.succeeded.bind(deliveries);
    let failOnce = true;
    // The first delivery's success cannot be recorded (its database busy, say): that lane fails.
    deliveries.succeeded = (head, status, now) => {
      if (head.sessionKey === 'ses_1' && failOnce) {
        failOnce = false;
        throw new Error('database is locked');
      }
      return succeeded(head, status, now);
    };
    deliveries.enqueue(WEBHOOK, ACCOUNT, event(1), 'ses_1', Date.now());
    for (let n = 10; n < 13; n++) deliveries.enqueue(WEBHOOK, ACCOUNT, event(n), 'ses_2', Date.now());
    start(deliveries);
    await expect.poll(() => ids.filter((id) => id !== event(1).id).length, { timeout: 5_000 }).toBe(3);
    await pause(500);
    // Each of the other session's deliveries once, in order.
    expect(ids.filter((id) => id !== event(1).id)).toEqual([event(10).id, event(11).id, event(12).id]);
  });

  it("closes its kept-alive connections to a webhook's old URL once the URL changed", async () => {
    answer = { status: 204, delayMs: 0 };
    const connections = (server: Server) => new Promise<number>((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    const moved = createServer((_request, response) => response.writeHead(204).end());
    await new Promise<void>((resolve) => moved.listen(0, '127.0.0.1', resolve));
    try {
      const deliveries = new DeliveryStore(db);
      deliveries.enqueue(WEBHOOK, ACCOUNT, event(1), 'ses_1', Date.now());
      const running = start(deliveries);
      await expect.poll(() => received, { timeout: 5_000 }).toBe(1);
      // Kept alive for the next delivery (the receiver would close it after its own 5 s).
      expect(await connections(receiver)).toBe(1);

      url = `http://127.0.0.1:${(moved.address() as AddressInfo).port}/hook`;
      deliveries.enqueue(WEBHOOK, ACCOUNT, event(2), 'ses_1', Date.now());
      running.kick(WEBHOOK);
      await expect.poll(() => connections(moved), { timeout: 5_000 }).toBe(1);
      await expect.poll(() => connections(receiver), { timeout: 2_000 }).toBe(0);
      expect(received).toBe(1);
    } finally {
      moved.closeAllConnections();
      await new Promise((resolve) => moved.close(resolve));
    }
  });

  it("closes a webhook's idle kept-alive connections as soon as it is told the webhook moved or went, with no delivery to follow", async () => {
    answer = { status: 204, delayMs: 0 };
    const connections = () => new Promise<number>((resolve, reject) => receiver.getConnections((error, count) => (error ? reject(error) : resolve(count))));
    const deliveries = new DeliveryStore(db);
    deliveries.enqueue(WEBHOOK, ACCOUNT, event(1), 'ses_1', Date.now());
    const running = start(deliveries);
    await expect.poll(() => received, { timeout: 5_000 }).toBe(1);
    expect(await connections()).toBe(1);
    running.retireAgent(WEBHOOK);
    await expect.poll(() => connections(), { timeout: 2_000 }).toBe(0);
  });
});
