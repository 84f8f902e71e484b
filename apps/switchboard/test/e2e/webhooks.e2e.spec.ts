import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, eventually } from '../support/http.js';
import { startSwitchboardUnderTest } from '../support/harness.js';
import type { Mode, SwitchboardUnderTest } from '../support/harness.js';
import { openEventStream, startWebhookReceiver } from '../support/webhook-receiver.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';

let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;

type Received = WebhookReceiver['received'][number];
const statusesOf = (receiver: WebhookReceiver, messageId: string) =>
  receiver.accepted().filter((r) => r.event.type === 'message.status' && r.event.data['messageId'] === messageId).map((r) => r.event.data['status']);

describe.each<Mode>(['embedded', 'distributed'])('webhooks and the live stream over HTTP (%s mode)', (mode) => {
  let sut: SwitchboardUnderTest;
  let api: ApiClient;
  let receiver: WebhookReceiver;
  let webhookId: string;
  let sessionId: string;

  const send = async (text: string) => {
    const sent = await api.post('/v1/messages/text', { sessionId, to: newPhone('1777'), text });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    return sent.body.data.messageId as string;
  };
  const readAll = (receiver: WebhookReceiver, ids: string[]) =>
    eventually(async () => ids.map((id) => statusesOf(receiver, id)), (all) => all.every((s) => s.includes('read')), 60_000);

  beforeAll(async () => {
    // Short retries: five failures and the success take about a second instead of 47 minutes.
    sut = await startSwitchboardUnderTest(mode, { env: { SWITCHBOARD_WEBHOOK_RETRY_SCHEDULE_MS: '100,100,100,100,100,100' } });
    api = new ApiClient(sut.url, sut.apiKey);
    receiver = await startWebhookReceiver();
    const created = await api.post('/v1/webhooks', { url: receiver.url, description: 'CRM' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data).toMatchObject({
      webhookId: expect.stringMatching(/^wh_/), url: receiver.url, description: 'CRM', enabled: true,
      events: ['session.status', 'session.qr', 'message.status', 'message.received', 'message.reaction'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    webhookId = created.body.data.webhookId;
    receiver.trust(created.body.data.secret);
    const session = await api.post('/v1/sessions', {});
    sessionId = session.body.data.sessionId;
    await sut.emulator.scan(session.body.data.qrCode, newPhone('1555'));
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  }, 180_000);
  afterAll(async () => {
    await receiver?.close();
    await sut?.close();
  });

  it('shows the secret only at creation, and refuses an unknown event type', async () => {
    const got = await api.get(`/v1/webhooks/${webhookId}`);
    expect(got.status).toBe(200);
    expect(got.body.data.secret).toBeUndefined();
    expect((await api.get('/v1/webhooks')).body.data.webhooks.map((w: { webhookId: string }) => w.webhookId)).toContain(webhookId);
    const bad = await api.post('/v1/webhooks', { url: receiver.url, events: ['message.sent'] });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('answers a create retried with its Idempotency-Key for the first webhook, secret included, and makes no second one', async () => {
    // An endpoint of its own: what the other tests count at theirs stays theirs.
    const endpoint = await startWebhookReceiver();
    const headers = { 'idempotency-key': `retried-create-${mode}` };
    const body = { url: endpoint.url, description: 'retried' };
    const first = await api.post('/v1/webhooks', body, headers);
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    const again = await api.post('/v1/webhooks', body, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.data).toEqual(first.body.data);
    const other = await api.post('/v1/webhooks', { ...body, description: 'another' }, headers);
    expect([other.status, other.body.error.code]).toEqual([409, 'IDEMPOTENCY_KEY_REUSED']);
    const listed = (await api.get('/v1/webhooks')).body.data.webhooks as { webhookId: string; description: string | null }[];
    expect(listed.filter((w) => w.description === 'retried').map((w) => w.webhookId)).toEqual([first.body.data.webhookId]);
    expect((await api.delete(`/v1/webhooks/${first.body.data.webhookId}`)).status).toBe(200);
    await endpoint.close();
  });

  it('delivers session.status for create and connect, signed and verifiable with standardwebhooks', async () => {
    const told = await eventually(
      async () => receiver.accepted().filter((r) => r.event.type === 'session.status' && r.event.data['sessionId'] === sessionId),
      (r) => r.length >= 2,
    );
    expect(told.map((r) => [r.event.data['status'], r.event.data['previousStatus'], r.event.data['reason']])).toEqual([
      ['pending', null, 'created'],
      ['connected', 'pending', 'paired'],
    ]);
    for (const r of told) {
      expect(r.verifiedWith).toHaveLength(1);
      expect(r.userAgent).toMatch(/^Switchboard-Webhooks\/\d+\.\d+\.\d+$/);
      expect(r.id).toBe(r.event.id);
    }
  });

  it('delivers session.qr for a new code and session.status for a deletion', async () => {
    const created = await api.post('/v1/sessions', {});
    const other = created.body.data.sessionId as string;
    const qr = await eventually(async () => receiver.accepted().filter((r) => r.event.type === 'session.qr' && r.event.data['sessionId'] === other), (r) => r.length >= 1);
    expect(qr[0]?.event.data).toMatchObject({ qrCode: expect.stringMatching(/^data:image\/png;base64,/), expiresAt: expect.any(String) });
    expect((await api.delete(`/v1/sessions/${other}`)).status).toBe(200);
    const told = await eventually(
      async () => receiver.accepted().filter((r) => r.event.type === 'session.status' && r.event.data['sessionId'] === other),
      (r) => r.length >= 2,
    );
    expect(told.map((r) => [r.event.data['status'], r.event.data['previousStatus'], r.event.data['reason']])).toEqual([
      ['pending', null, 'created'],
      ['disconnected', 'pending', 'deleted'],
    ]);
  });

  it('delivers message.status sent -> delivered -> read, in that order', async () => {
    const messageId = await send('status please');
    await readAll(receiver, [messageId]);
    expect(statusesOf(receiver, messageId)).toEqual(['sent', 'delivered', 'read']);
  });

  it('retries a receiver that answers 500 five times, with the same id, then succeeds; deliveries show the attempts', async () => {
    receiver.answerWith((_id, seenBefore) => (seenBefore < 5 ? 500 : 200));
    try {
      const test = await api.post(`/v1/webhooks/${webhookId}/test`);
      expect(test.status).toBe(200);
      const eventId = test.body.data.eventId;
      const tries = await eventually(async () => receiver.received.filter((r) => r.id === eventId), (r) => r.length >= 6);
      expect(tries.map((r) => r.status)).toEqual([500, 500, 500, 500, 500, 200]);
      expect(tries.every((r) => r.event.type === 'webhook.test' && r.verifiedWith.length === 1)).toBe(true);
      const list = await api.get(`/v1/webhooks/${webhookId}/deliveries?status=succeeded&limit=200`);
      expect(list.body.data.deliveries.find((d: { eventId: string }) => d.eventId === eventId)).toMatchObject({
        eventType: 'webhook.test', status: 'succeeded', attempts: 6, lastStatusCode: 200, nextAttemptAt: null,
      });
    } finally {
      receiver.answerWith(() => 200);
    }
  });

  it('replays past events under the same ids', async () => {
    const since = new Date(Date.now() - 60_000).toISOString();
    const before = receiver.accepted().filter((r) => r.event.type === 'message.status').map((r) => r.id);
    const replay = await api.post(`/v1/webhooks/${webhookId}/replay`, { since, types: ['message.status'] });
    expect(replay.status).toBe(200);
    expect(replay.body.data.queued).toBeGreaterThanOrEqual(before.length);
    const again = await eventually(
      async () => receiver.received.filter((r) => before.includes(r.id)),
      (r) => before.every((id) => r.filter((x) => x.id === id).length >= 2),
    );
    expect(new Set(again.map((r) => r.id))).toEqual(new Set(before));
  });

  it('rotates the secret: both signatures verify during the overlap', async () => {
    const rotated = await api.post(`/v1/webhooks/${webhookId}/secret`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data.secret as string;
    receiver.trust(fresh);
    const test = await api.post(`/v1/webhooks/${webhookId}/test`);
    const [delivery] = await eventually(async () => receiver.received.filter((r) => r.id === test.body.data.eventId), (r) => r.length >= 1);
    expect((delivery as Received).verifiedWith).toHaveLength(2);
  });

  it('refuses private, link-local and metadata URLs with 400 before any connection', async () => {
    for (const url of ['http://10.0.0.1/hook', 'http://192.168.1.20/hook', 'http://169.254.169.254/latest/meta-data', 'http://[fd00:ec2::254]/', 'http://[::ffff:10.1.2.3]/']) {
      const refused = await api.post('/v1/webhooks', { url });
      expect([refused.status, refused.body.error?.code], url).toEqual([400, 'WEBHOOK_URL_FORBIDDEN']);
    }
    const ftp = await api.post('/v1/webhooks', { url: 'ftp://127.0.0.1/hook' });
    expect([ftp.status, ftp.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it("answers 404 for another account's webhook and for an unknown one", async () => {
    const admin = new ApiClient(sut.url, sut.adminKey);
    const other = api.withKey((await admin.post('/v1/admin/accounts', { name: 'other', plan: 'basic' })).body.data.apiKey);
    for (const call of [other.get(`/v1/webhooks/${webhookId}`), other.delete(`/v1/webhooks/${webhookId}`), other.post(`/v1/webhooks/${webhookId}/test`), api.get('/v1/webhooks/wh_01JD8Z9C2D3E4F5G6H7J8K9M0N')]) {
      const r = await call;
      expect([r.status, r.body.error.code]).toEqual([404, 'WEBHOOK_NOT_FOUND']);
    }
    expect((await other.get('/v1/webhooks')).body.data.webhooks).toEqual([]);
  });

  it('streams events over SSE and resumes after Last-Event-ID across a gateway restart without a gap', async () => {
    const first = openEventStream(sut.url, sut.apiKey);
    expect((await first.response).headers.get('content-type')).toMatch(/^text\/event-stream/);
    const m1 = await send('over sse');
    await eventually(async () => first.frames.filter((f) => f.data.data['messageId'] === m1), (f) => f.length >= 1);
    const lastSeen = first.frames.find((f) => f.data.data['messageId'] === m1)!;
    expect(lastSeen).toMatchObject({ event: 'message.status', id: lastSeen.data.id });
    await first.close();
    // The rest of m1's statuses happen while no client listens; the gateway dies meanwhile.
    await readAll(receiver, [m1]);
    if (sut.cluster) {
      await sut.cluster.kill('gateway');
      sut.cluster.start('gateway');
      await sut.cluster.untilReady();
    }
    const m2 = await send('after the restart');
    const resumed = openEventStream(sut.url, sut.apiKey, lastSeen.id);
    await readAll(receiver, [m2]);
    const told = receiver.accepted().filter((r) => r.event.type === 'message.status' && [m1, m2].includes(r.event.data['messageId'] as string)).map((r) => r.id);
    const expected = told.slice(told.indexOf(lastSeen.id) + 1);
    expect(expected.length).toBeGreaterThanOrEqual(4);
    const got = await eventually(async () => resumed.frames.filter((f) => f.event === 'message.status').map((f) => f.id), (ids) => ids.length >= expected.length);
    expect(got).toEqual(expected);
    await resumed.close();
  });

  it('delivers every event after a SIGKILL of the process holding the dispatcher while events flow', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await send(`before kill ${i}`));
    if (sut.cluster) {
      await sut.cluster.kill('events');
      for (let i = 0; i < 5; i++) ids.push(await send(`events down ${i}`));
      sut.cluster.start('events');
      await sut.cluster.untilReady();
    } else {
      // The whole process dies: its receipts must be in the streams first, the deliveries need not be.
      await eventually(async () => Promise.all(ids.map((id) => api.get(`/v1/messages/${id}`))), (r) => r.every((x) => x.body?.data?.status === 'read'));
      await sut.crashAndRestartSessions();
    }
    await readAll(receiver, ids);
    for (const id of ids) expect(statusesOf(receiver, id)).toEqual(['sent', 'delivered', 'read']);
  });

  it.runIf(mode === 'distributed')('delivers every message.status after a SIGKILL of sessions and then of messaging while they flow', async () => {
    // The live stream reads the events service's feed: the events recorded, to hold the receiver to.
    const stream = openEventStream(sut.url, sut.apiKey);
    await stream.response;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await send(`before sessions kill ${i}`));
    // Their receipts are still on their way (the contacts read after a second).
    await sut.cluster!.kill('sessions');
    sut.cluster!.start('sessions');
    await sut.cluster!.untilReady();
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
    for (let i = 0; i < 5; i++) ids.push(await send(`before messaging kill ${i}`));
    await sut.cluster!.kill('messaging');
    sut.cluster!.start('messaging');
    await sut.cluster!.untilReady();
    await readAll(receiver, ids);
    const ours = (data: Record<string, unknown>) => ids.includes(data['messageId'] as string);
    const statusFrames = () => stream.frames.filter((f) => f.event === 'message.status' && ours(f.data.data));
    await eventually(async () => statusFrames(), (frames) => ids.every((id) => frames.some((f) => f.data.data['messageId'] === id && f.data.data['status'] === 'read')));
    await stream.close();
    const recorded = [...new Set(statusFrames().map((f) => f.id))];
    const delivered = [...new Set(receiver.accepted().filter((r) => r.event.type === 'message.status' && ours(r.event.data)).map((r) => r.id))];
    expect(recorded.filter((id) => !delivered.includes(id)), 'recorded but never delivered').toEqual([]);
    expect(delivered.filter((id) => !recorded.includes(id)), 'delivered but not recorded').toEqual([]);
    // Redeliveries keep their id; statuses never go backwards. A read that messaging records before
    // a delayed delivery receipt moves the message straight from sent to read (no delivered event).
    for (const id of ids) {
      const distinct = [...new Map(receiver.accepted().filter((r) => r.event.type === 'message.status' && r.event.data['messageId'] === id).map((r) => [r.id, r.event.data['status']])).values()];
      expect(['sent', 'delivered', 'read'].filter((status) => distinct.includes(status)), id).toEqual(distinct);
      expect([distinct[0], distinct.at(-1)], id).toEqual(['sent', 'read']);
    }
  }, 180_000);

  it.runIf(mode === 'distributed')('delivers every event across a NATS restart while they flow', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await send(`before nats restart ${i}`));
    // The receipts must be in the streams before the bus goes; their deliveries need not be.
    await eventually(async () => Promise.all(ids.map((id) => api.get(`/v1/messages/${id}`))), (r) => r.every((x) => x.body?.data?.status === 'read'));
    await sut.cluster!.stopNats();
    await sut.cluster!.startNats();
    await sut.cluster!.untilReady();
    for (let i = 0; i < 3; i++) ids.push(await send(`after nats restart ${i}`));
    await readAll(receiver, ids);
    for (const id of ids) expect(statusesOf(receiver, id)).toEqual(['sent', 'delivered', 'read']);
  });
});
