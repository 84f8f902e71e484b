import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NatsBus, NoResponderError } from '@switchboard/bus';
import { MessagingSubjects } from '@switchboard/contracts';
import { ApiClient, eventually } from '../support/http.js';
import { startSwitchboardUnderTest } from '../support/harness.js';
import type { ClusterControls, SwitchboardUnderTest } from '../support/harness.js';

// Distributed mode with a service or the bus gone: what a client hears, how soon, and that the
// Idempotency-Key of a send that told it to retry serves the retry. A short send deadline keeps
// the waits short; the gateway's bound is that deadline plus its documented margins.
const SEND_DEADLINE_MS = 3_000;
/** The gateway's hop margin over the send deadline (routes/messages.ts), plus scheduling slack. */
const ANSWER_BOUND_MS = SEND_DEADLINE_MS + 2_000 + 3_000;

let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;

describe('a service or the bus gone (distributed mode)', () => {
  let sut: SwitchboardUnderTest;
  let cluster: ClusterControls;
  let api: ApiClient;
  let sessionId: string;

  const text = (to: string, body: string, headers: Record<string, string> = {}) => api.post('/v1/messages/text', { sessionId, to, text: body }, headers);
  const timed = async <T>(work: Promise<T>): Promise<[T, number]> => {
    const started = Date.now();
    const result = await work;
    return [result, Date.now() - started];
  };

  beforeAll(async () => {
    sut = await startSwitchboardUnderTest('distributed', { env: { SWITCHBOARD_SEND_DEADLINE_MS: String(SEND_DEADLINE_MS) } });
    cluster = sut.cluster!;
    api = new ApiClient(sut.url, sut.apiKey);
    const created = await api.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, newPhone('1445'));
    sessionId = created.body.data.sessionId;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  }, 180_000);
  afterAll(async () => {
    await sut?.close();
  });

  it('answers 503 with Retry-After while sessions is down, and the same key and body are sent once it is back', async () => {
    const to = newPhone('1667');
    const headers = { 'idempotency-key': `down-${to}` };
    await cluster.kill('sessions');
    const refused = await text(to, 'after the outage', headers);
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    cluster.start('sessions');
    await cluster.untilReady();
    // The client retries as told: the stored failure is not replayed, the message goes out.
    const retried = await eventually(() => text(to, 'after the outage', headers), (r) => r.status !== 503, 60_000);
    expect(retried.status, JSON.stringify(retried.body)).toBe(201);
    expect(retried.body.data.status).toBe('sent');
    const replay = await text(to, 'after the outage', headers);
    expect(replay.body.data.messageId).toBe(retried.body.data.messageId);
    const received = await eventually(() => sut.emulator.messages(to), (m) => m.length === 1);
    expect(received.map((m) => m.text)).toEqual(['after the outage']);
  }, 120_000);

  /**
   * Resolves once NATS itself answers "no responders" on `subject`: the server drops a killed
   * process's subscriptions when it reads the closed socket, which on a loaded machine can come
   * a moment after the process is gone (a request in between waits for its deadline).
   */
  async function untilNobodyServes(subject: string): Promise<void> {
    const probe = await NatsBus.connect({ servers: sut.natsUrl!, name: 'unavailable-e2e-probe' });
    try {
      for (const giveUpAt = Date.now() + 10_000; Date.now() < giveUpAt; ) {
        const outcome = await probe.request(subject, {}, { timeoutMs: 250 }).catch((error: unknown) => error);
        if (outcome instanceof NoResponderError) return;
      }
      throw new Error(`NATS still routes ${subject} to a responder 10 s after the kill`);
    } finally {
      await probe.close();
    }
  }

  it('answers 503 at once when nobody serves the send (no responders), not at a deadline', async () => {
    await cluster.kill('messaging');
    await untilNobodyServes(MessagingSubjects.sendText.subject);
    try {
      const [refused, tookMs] = await timed(text(newPhone('1667'), 'nobody home'));
      expect(refused.status).toBe(503);
      expect(refused.body.error).toMatchObject({ code: 'SERVICE_UNAVAILABLE', requestId: refused.headers.get('x-request-id') });
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(tookMs).toBeLessThan(SEND_DEADLINE_MS);
    } finally {
      cluster.start('messaging');
      await cluster.untilReady();
    }
  }, 120_000);

  it('bounds the wait by the send deadline when messaging dies with sends in flight', async () => {
    // Sessions frozen: messaging holds the sends, waiting for the network's acknowledgement.
    cluster.signal('sessions', 'SIGSTOP');
    const to = newPhone('1667');
    const inFlight = Array.from({ length: 4 }, (_, i) => timed(text(to, `in flight ${i}`)));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await cluster.kill('messaging');
    const answers = await Promise.all(inFlight);
    cluster.signal('sessions', 'SIGCONT');
    cluster.start('messaging');
    await cluster.untilReady();
    for (const [answer, tookMs] of answers) {
      expect(answer.status).toBe(504);
      expect(answer.body.error.code).toBe('UPSTREAM_TIMEOUT');
      expect(tookMs).toBeLessThan(ANSWER_BOUND_MS);
    }
  }, 120_000);

  it('answers 503 as soon as the bus drops with sends in flight, and serves again once it is back', async () => {
    cluster.signal('sessions', 'SIGSTOP');
    const to = newPhone('1667');
    const inFlight = Array.from({ length: 4 }, (_, i) => timed(text(to, `bus gone ${i}`)));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await cluster.stopNats();
    const answers = await Promise.all(inFlight);
    cluster.signal('sessions', 'SIGCONT');
    await cluster.startNats();
    await cluster.untilReady();
    for (const [answer, tookMs] of answers) {
      expect(answer.status).toBe(503);
      expect(answer.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(tookMs).toBeLessThan(SEND_DEADLINE_MS);
    }
    const after = await eventually(() => text(newPhone('1667'), 'bus back'), (r) => r.status === 201, 60_000);
    expect(after.body.data.status).toBe('sent');
  }, 120_000);
});
