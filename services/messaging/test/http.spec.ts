import { QuotaSubjects } from '@switchboard/contracts';
import type { Plan } from '@switchboard/contracts';
import { hashApiKey, loadConfig, mintApiKey } from '@switchboard/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, buildServices, eventually, newMessageId, uniquePhone } from './support/cluster.js';

// Over HTTP through the gateway process: what a client sees of the message endpoints.

let cluster: Cluster;
let key: string;
let sessionId: string;

beforeAll(async () => {
  buildServices();
  cluster = await Cluster.start({ gateway: true });
  ({ key } = await accountWithKey('basic'));
  sessionId = await connectedSession(key);
}, 240_000);
afterAll(async () => {
  await cluster?.close();
});

async function accountWithKey(plan: Plan): Promise<{ accountId: string; key: string }> {
  const apiKey = mintApiKey();
  const { accountId } = await cluster.call(QuotaSubjects.accounts.create, { plan, key: { keyHash: hashApiKey(apiKey), scopes: ['api'] } });
  return { accountId, key: apiKey };
}

async function http(method: string, path: string, apiKey: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${cluster.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> & { data?: Record<string, unknown>; error?: Record<string, unknown> } };
}

async function connectedSession(apiKey: string): Promise<string> {
  const created = await http('POST', '/v1/sessions', apiKey, {});
  const { sessionId: id, qrCode } = created.body.data as { sessionId: string; qrCode: string };
  await cluster.control.scan(qrCode, uniquePhone());
  await eventually(async () => ((await http('GET', `/v1/sessions/${id}`, apiKey)).body.data?.['status'] === 'connected' ? true : undefined));
  return id;
}

describe('POST /v1/messages/* and GET /v1/messages/{id} over HTTP', () => {
  it('201 with exactly the documented body and RateLimit headers; the lookup answers under both prefixes', async () => {
    const contact = uniquePhone();
    const sent = await http('POST', '/v1/messages/text', key, { sessionId, to: contact, text: 'over HTTP' });
    expect(sent.status).toBe(201);
    expect(sent.body).toEqual({ success: true, data: { messageId: expect.stringMatching(/^msg_/), status: 'sent', timestamp: expect.any(String) } });
    expect(sent.headers.get('ratelimit-limit')).toBe('1000');
    expect(Number(sent.headers.get('ratelimit-remaining'))).toBeLessThan(1000);
    expect(Number(sent.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    const id = sent.body.data!['messageId'] as string;
    const v1 = await http('GET', `/v1/messages/${id}`, key);
    const api = await http('GET', `/api/v1/messages/${id}`, key);
    expect(v1.status).toBe(200);
    expect(v1.body.data).toMatchObject({ messageId: id, timestamp: sent.body.data!['timestamp'], sessionId, to: contact, type: 'text' });
    expect(api.body.data?.['messageId']).toBe(id);
    expect((await cluster.control.messages(contact)).map((m) => m.text)).toEqual(['over HTTP']);
  });

  it('unlimited plans get the RateLimit headers too, with the documented "no limit" figure', async () => {
    const { key: enterpriseKey } = await accountWithKey('enterprise');
    const session = await connectedSession(enterpriseKey);
    const sent = await http('POST', '/v1/messages/location', enterpriseKey, { sessionId: session, to: uniquePhone(), latitude: 0, longitude: 0 });
    expect(sent.status).toBe(201);
    expect(sent.headers.get('ratelimit-limit')).toBe('2147483647');
    expect(sent.headers.get('ratelimit-remaining')).toBe('2147483647');
    expect(Number(sent.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  });

  it('media answers 201 with mediaType under /api/v1', async () => {
    const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const sent = await http('POST', '/api/v1/messages/media', key, { sessionId, to: uniquePhone(), mediaType: 'image', media: `data:image/png;base64,${png}` });
    expect(sent.status).toBe(201);
    expect(sent.body.data).toMatchObject({ status: 'sent', mediaType: 'image' });
  });

  it('400 with the path of every problem, and nothing sent', async () => {
    const contact = uniquePhone();
    const refused = await http('POST', '/v1/messages/buttons', key, { sessionId, to: contact, text: 'x', buttons: [{ id: 'a', text: 'x'.repeat(21) }] });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: [{ path: 'buttons.0.text', message: expect.any(String) }] });
    expect(await cluster.control.messages(contact)).toEqual([]);
  });

  it('404 for unknown and foreign message ids', async () => {
    const mine = await http('POST', '/v1/messages/text', key, { sessionId, to: uniquePhone(), text: 'mine' });
    const { key: strangerKey } = await accountWithKey('basic');
    expect((await http('GET', `/v1/messages/${mine.body.data!['messageId'] as string}`, strangerKey)).body.error).toMatchObject({ code: 'MESSAGE_NOT_FOUND' });
    expect((await http('GET', `/v1/messages/${newMessageId()}`, key)).status).toBe(404);
  });

  it('Idempotency-Key: the first response again and one send; 409 for another body; 400 when malformed', async () => {
    const contact = uniquePhone();
    const headers = { 'idempotency-key': `order-${newMessageId()}` };
    const first = await http('POST', '/v1/messages/text', key, { sessionId, to: contact, text: 'once' }, headers);
    const again = await http('POST', '/v1/messages/text', key, { text: 'once', sessionId, to: contact }, headers);
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect([first.headers.get('idempotent-replayed'), again.headers.get('idempotent-replayed')]).toEqual([null, 'true']);
    const sessionHeaders = { 'idempotency-key': `session-${newMessageId()}` };
    const created = await http('POST', '/v1/sessions', key, {}, sessionHeaders);
    const createdAgain = await http('POST', '/v1/sessions', key, {}, sessionHeaders);
    expect(createdAgain.body.data?.['sessionId']).toBe(created.body.data?.['sessionId']);
    expect([created.headers.get('idempotent-replayed'), createdAgain.headers.get('idempotent-replayed')]).toEqual([null, 'true']);
    const other = await http('POST', '/v1/messages/text', key, { sessionId, to: contact, text: 'twice?' }, headers);
    expect(other.status).toBe(409);
    expect(other.body.error).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    const malformed = await http('POST', '/v1/messages/text', key, { sessionId, to: contact, text: 'x' }, { 'idempotency-key': 'has space' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ details: [{ path: 'headers.idempotency-key' }] });
    await new Promise((r) => setTimeout(r, 500));
    expect((await cluster.control.messages(contact)).map((m) => m.text)).toEqual(['once']);
  });

  it('429 past the daily limit with Retry-After and RateLimit headers', async () => {
    const { key: freeKey } = await accountWithKey('free');
    const freeSession = await connectedSession(freeKey);
    const contact = uniquePhone();
    for (let i = 0; i < 50; i++) {
      const ok = await http('POST', '/v1/messages/location', freeKey, { sessionId: freeSession, to: contact, latitude: 1, longitude: i });
      expect(ok.status).toBe(201);
      expect(ok.headers.get('ratelimit-remaining')).toBe(String(49 - i));
    }
    const refused = await http('POST', '/v1/messages/location', freeKey, { sessionId: freeSession, to: contact, latitude: 1, longitude: 99 });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'DAILY_MESSAGE_LIMIT_REACHED', details: { limit: 50, used: 50 } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-limit')).toBe('50');
    expect(refused.headers.get('ratelimit-remaining')).toBe('0');
  });

  it('202 pending past the send deadline, then sent in the lookup', async () => {
    await cluster.messaging?.close();
    cluster.options.messaging = { config: { ...loadConfig(cluster.env), sendDeadlineMs: 1 } };
    await cluster.startMessaging();
    try {
      const sent = await http('POST', '/v1/messages/text', key, { sessionId, to: uniquePhone(), text: 'slow' });
      expect(sent.status).toBe(202);
      expect(sent.body.data).toMatchObject({ status: 'pending' });
      const id = sent.body.data!['messageId'] as string;
      await eventually(async () => (['sent', 'delivered', 'read'].includes((await http('GET', `/v1/messages/${id}`, key)).body.data?.['status'] as string) ? true : undefined));
    } finally {
      await cluster.messaging?.close();
      cluster.options.messaging = {};
      await cluster.startMessaging();
    }
  });
});
