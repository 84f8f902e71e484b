import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InProcessBus } from '@switchboard/bus';
import type { ResolvedAddress } from '@switchboard/net-policy';
import { loadConfig } from '@switchboard/service-kit';
import { createLogger } from '@switchboard/telemetry';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEventsService } from '../src/index.js';
import type { RunningEventsService } from '../src/index.js';

const ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';

/**
 * Host names answered by a resolver of the test's own (no real DNS). Nothing here connects
 * anywhere: a refused address is refused before connecting, and the only address that could be
 * reached if the check regressed is a loopback one (loopback is not allowed in these tests).
 */
describe('webhook URLs whose host name resolves to a forbidden address', () => {
  let dataDir: string;
  let bus: InProcessBus;
  let events: RunningEventsService;
  const answers = new Map<string, ResolvedAddress[]>();
  const asked: string[] = [];

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'sb-webhook-urls-'));
    bus = new InProcessBus();
    const config = loadConfig({ SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_WEBHOOK_ALLOW_LOOPBACK: 'false' });
    const resolver = async (hostname: string) => {
      asked.push(hostname);
      const found = answers.get(hostname);
      if (!found) throw new Error(`ENOTFOUND ${hostname}`);
      return found;
    };
    events = await startEventsService({ bus, config, logger: createLogger({ service: 'test', level: 'silent' }), resolver, pollMs: 100 });
  });
  afterEach(async () => {
    await events.close();
    await bus.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it.each([
    ['a private address', [{ address: '10.1.2.3', family: 4 }]],
    ['the cloud metadata address', [{ address: '169.254.169.254', family: 4 }]],
    ['a public and a private address (one bad answer refuses the name)', [{ address: '93.184.216.34', family: 4 }, { address: '192.168.0.7', family: 4 }]],
    ['an IPv6 unique-local address', [{ address: 'fd00::1', family: 6 }]],
    ['loopback, with loopback not allowed', [{ address: '127.0.0.1', family: 4 }]],
  ] as const)('refuses a host name resolving to %s at creation (WEBHOOK_URL_FORBIDDEN)', async (_label, addresses) => {
    answers.set('hooks.example.test', [...addresses]);
    await expect(events.api.createWebhook({ accountId: ACCOUNT, body: { url: 'https://hooks.example.test/in' } })).rejects.toMatchObject({ code: 'WEBHOOK_URL_FORBIDDEN' });
    expect(events.api.listWebhooks(ACCOUNT).webhooks).toEqual([]);
  });

  it('refuses a host name that does not resolve', async () => {
    await expect(events.api.createWebhook({ accountId: ACCOUNT, body: { url: 'https://nowhere.example.test/in' } })).rejects.toMatchObject({ code: 'WEBHOOK_URL_FORBIDDEN' });
  });

  it('checks the address again at each delivery: a name rebound to a forbidden address after creation is not connected to', async () => {
    answers.set('rebind.example.test', [{ address: '93.184.216.34', family: 4 }]);
    const webhook = await events.api.createWebhook({ accountId: ACCOUNT, body: { url: 'http://rebind.example.test/in' } });
    answers.set('rebind.example.test', [{ address: '127.0.0.1', family: 4 }]);
    asked.length = 0;
    events.api.test({ accountId: ACCOUNT, webhookId: webhook.webhookId });
    let delivery;
    for (let i = 0; i < 100 && !delivery?.lastError; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      delivery = events.api.listDeliveries({ accountId: ACCOUNT, webhookId: webhook.webhookId, limit: 10 }).deliveries[0];
    }
    expect(asked).toContain('rebind.example.test');
    expect(delivery).toMatchObject({ eventType: 'webhook.test', status: 'pending', attempts: 1, lastError: 'address_forbidden', lastStatusCode: null });
  });
});
