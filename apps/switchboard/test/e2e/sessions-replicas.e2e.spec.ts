import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDistributed } from '../support/harness.js';
import type { SessionsReplica, SwitchboardUnderTest } from '../support/harness.js';
import { ApiClient, eventually } from '../support/http.js';
import { scrape } from '../support/scrape.js';

// Issue 14: three sessions processes share the sessions (leases in NATS JetStream KV, events in
// PostgreSQL). A SIGKILL moves the dead one's sessions to the survivors without a scan; a SIGTERM
// hands them over first; no device is ever connected twice.

const SESSIONS = 30;
const CONTACT_PREFIX = '1777';
let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;

interface Answer {
  status: number;
  messageId?: string;
  to: string;
  text: string;
}

interface Linked {
  sessionId: string;
  phone: string;
}

describe('sessions shared by three replicas (distributed: NATS + PostgreSQL)', () => {
  let sut: SwitchboardUnderTest;
  let api: ApiClient;
  let replicas: readonly SessionsReplica[];
  const linked: Linked[] = [];

  beforeAll(async () => {
    sut = await startDistributed({ sessionsReplicas: 3 });
    api = new ApiClient(sut.url, sut.apiKey);
    replicas = sut.cluster!.sessionsReplicas;
    for (let i = 0; i < SESSIONS; i++) {
      const created = await api.post('/v1/sessions', {});
      expect(created.status).toBe(201);
      const phone = newPhone('1555');
      await sut.emulator.scan(created.body.data.qrCode, phone);
      linked.push({ sessionId: created.body.data.sessionId, phone });
    }
    for (const { sessionId } of linked) await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  }, 240_000);
  afterAll(async () => {
    await sut?.close();
  });

  /** Its share of the sessions; 0 while it is down or not listening yet. */
  const connectionsOf = async (replica: SessionsReplica) => (await scrape(replica.metricsUrl).catch((): Record<string, number> => ({})))['switchboard_chat_connections'] ?? 0;
  const allOnline = async () => (await Promise.all(linked.map(({ phone }) => sut.emulator.device(phone)))).every((d) => d.online && d.connections === 1);

  /** Sends texts one after another (a few in flight) until stopped; every answer kept. */
  let rounds = 0;
  function steadySends(count: number) {
    const round = rounds++;
    const answers: Answer[] = [];
    let stopped = false;
    const run = async (worker: number) => {
      for (let i = worker; !stopped && i < count; i += 4) {
        const { sessionId } = linked[i % linked.length]!;
        const to = `${CONTACT_PREFIX}${String(process.pid % 1000).padStart(3, '0')}${String(i % 7).padStart(4, '0')}`;
        const text = `steady ${process.pid} ${round} ${i}`;
        const sent = await api.post('/v1/messages/text', { sessionId, to, text });
        answers.push({ status: sent.status, messageId: sent.body?.data?.messageId, to, text });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const done = Promise.all([0, 1, 2, 3].map(run));
    return { answers, stop: async () => ((stopped = true), await done) };
  }

  /**
   * Every accepted text shown once at its contact (one entry, one network id), and its status past
   * `sent`. Answers how many were carried again under their id (only a send in doubt at a kill may be).
   */
  async function expectEachShownOnce(answers: Answer[]): Promise<number> {
    expect(answers.filter((a) => a.status !== 201 && a.status !== 202)).toEqual([]);
    const contacts = [...new Set(answers.map((a) => a.to))];
    const shown = async () => (await Promise.all(contacts.map((c) => sut.emulator.messages(c)))).flat();
    const received = await eventually(shown, (all) => answers.every((a) => all.some((m) => m.text === a.text)), 60_000).catch(async () => {
      // What the API says of each text missing at its contact (failed, and why; or still pending).
      const all = await shown();
      const missing = answers.filter((a) => !all.some((m) => m.text === a.text));
      const found = await Promise.all(missing.map(async (a) => ({ text: a.text, answered: a.status, now: (await api.get(`/v1/messages/${a.messageId}`)).body?.data })));
      expect(found).toEqual([]);
      return all;
    });
    expect(answers.filter((a) => received.filter((m) => m.text === a.text).length !== 1).map((a) => a.text)).toEqual([]);
    // A send answered 202 (past the deadline) is sent by messaging's retry a little later.
    for (const answer of answers) {
      await eventually(() => api.get(`/v1/messages/${answer.messageId}`), (r) => ['sent', 'delivered', 'read'].includes(r.body?.data?.status), 30_000);
    }
    return answers.reduce((sum, a) => sum + received.find((m) => m.text === a.text)!.repeats, 0);
  }

  it('spreads 30 sessions evenly over the 3 replicas', async () => {
    const counts = await Promise.all(replicas.map(connectionsOf));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(SESSIONS);
    expect(counts).toEqual([10, 10, 10]);
  });

  it('kill -9 of one replica: its sessions are connected again on the survivors within 10 s, no scan, no device ever connected twice, sends answered and shown once', async () => {
    const sends = steadySends(120);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const victim = replicas[2]!;
    const killedAt = performance.now();
    await victim.kill();
    await eventually(allOnline, Boolean, 20_000);
    const reconnectedMs = performance.now() - killedAt;
    console.info(`failover of ${SESSIONS / 3} sessions: all connected again ${Math.round(reconnectedMs)} ms after the kill`);
    expect(reconnectedMs).toBeLessThan(10_000);
    await sends.stop();
    const counts = await Promise.all(replicas.slice(0, 2).map(connectionsOf));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(SESSIONS);
    for (const { phone } of linked) expect((await sut.emulator.device(phone)).maxConcurrentConnections).toBe(1);
    // Carried again only if in doubt when its sender died: at most the sends then in flight (4).
    expect(await expectEachShownOnce(sends.answers)).toBeLessThanOrEqual(4);
    await victim.start();
    // The returning replica is given its share back, one clean handover at a time.
    await eventually(() => connectionsOf(victim), (n) => n >= 9, 30_000);
    await eventually(allOnline, Boolean, 20_000);
  }, 180_000);

  it('a rolling restart (SIGTERM, then start, one replica after another) under steady sends fails no send, loses none and repeats none', async () => {
    const sends = steadySends(400);
    for (const replica of replicas) {
      await replica.stop();
      expect(await allOnlineSoon()).toBe(true);
      // As a Deployment's rolling update does: the next one stops once this one is up again.
      await replica.start();
    }
    await sends.stop();
    for (const { phone } of linked) expect((await sut.emulator.device(phone)).maxConcurrentConnections).toBe(1);
    // No send fails: each is sent within the deadline (201) or accepted and sent by messaging's
    // retry a little later (202; rare: one in a few hundred was seen in a CI run).
    console.info(`rolling restart: ${sends.answers.length} sends, ${sends.answers.filter((a) => a.status === 202).length} answered 202`);
    expect(await expectEachShownOnce(sends.answers)).toBe(0);
  }, 300_000);

  async function allOnlineSoon(): Promise<boolean> {
    await eventually(allOnline, Boolean, 15_000);
    return true;
  }
});
