import type { AddressInfo } from 'node:net';
import { EventsSubjects, publicEventsWakeSubject } from '@switchboard/contracts';
import type { InProcessBus } from '@switchboard/bus';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_KEY, bearer, createAccount, quotaBus, startGateway } from './support.js';

// GET /v1/events against a stand-in events service on the in-process bus: what a client sees of
// the frames, of Last-Event-ID, and of a gateway that shuts down under an open stream.

let bus: InProcessBus;
let app: FastifyInstance;
let url: string;
let reads: { after?: string; cursor?: string; types?: string[] }[];
let pending: unknown[];

const event = (n: number) => ({
  id: `evt_${String(n).padStart(26, '0')}`,
  type: 'session.status',
  timestamp: '2026-11-21T10:00:00.000Z',
  data: { sessionId: 'ses_01JD8Z6Q9V4N2C3B5X7M1K0P2R', status: 'pending', previousStatus: null, reason: 'created' },
});

beforeEach(async () => {
  ({ bus } = await quotaBus());
  reads = [];
  pending = [];
  await bus.subscribe(EventsSubjects.readStream.subject, (message) => {
    const request = message.data as { after?: string; cursor?: string; types?: string[] };
    reads.push(request);
    const events = pending.splice(0);
    return { events, cursor: String(reads.length) };
  });
  app = await startGateway(bus);
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
});
afterEach(async () => {
  await app.close();
  await bus.close();
});

/** The gateway again, over a stand-in events service that answers each stream read with `answer`. */
async function restartWith(answer: (readNumber: number) => unknown): Promise<void> {
  await app.close();
  await bus.close();
  ({ bus } = await quotaBus());
  await bus.subscribe(EventsSubjects.readStream.subject, (message) => {
    reads.push(message.data as { cursor?: string });
    return answer(reads.length);
  });
  app = await startGateway(bus);
  await app.listen({ host: '127.0.0.1', port: 0 });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/** The raw stream as a client reads it: `until` reads on until the text so far satisfies it. */
function sse(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  return async (until: (text: string) => boolean): Promise<string> => {
    while (!until(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    return text;
  };
}

describe('GET /v1/events', () => {
  it('refuses a request without a key, and a bad filter, with the error envelope', async () => {
    expect((await fetch(`${url}/v1/events`)).status).toBe(401);
    const { apiKey } = await createAccount(app);
    const bad = await fetch(`${url}/v1/events?types=message.sent`, { headers: bearer(apiKey) });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_ERROR');
  });

  it('resumes after Last-Event-ID, writes id/event/data frames, and follows a wake-up', async () => {
    const { accountId, apiKey } = await createAccount(app);
    pending.push(event(1));
    const abort = new AbortController();
    const response = await fetch(`${url}/v1/events?types=session.status`, { headers: { ...bearer(apiKey), 'last-event-id': event(0).id }, signal: abort.signal });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const read = sse(response);
    const first = await read((t) => t.includes(event(1).id));
    expect(first).toContain(`id: ${event(1).id}\nevent: session.status\ndata: ${JSON.stringify(event(1))}\n\n`);
    expect(reads[0]).toMatchObject({ accountId, after: event(0).id, types: ['session.status'] });
    pending.push(event(2));
    await bus.publish(publicEventsWakeSubject(accountId), {});
    const rest = await read((t) => t.includes(event(2).id));
    expect(rest).toContain(`id: ${event(2).id}`);
    expect(reads.at(-1)).toMatchObject({ cursor: expect.any(String) });
    abort.abort();
  });

  it('ends a stream once its key is revoked, as every request is refused from then on', async () => {
    const { accountId } = await createAccount(app);
    const issued = await app.inject({ method: 'POST', url: `/v1/admin/accounts/${accountId}/keys`, headers: bearer(ADMIN_KEY) });
    const { keyId, apiKey } = issued.json().data as { keyId: string; apiKey: string };
    const response = await fetch(`${url}/v1/events`, { headers: bearer(apiKey) });
    const read = sse(response);
    await read((t) => t.includes(': connected'));
    const revoked = await app.inject({ method: 'DELETE', url: `/v1/admin/keys/${keyId}`, headers: bearer(ADMIN_KEY) });
    expect(revoked.statusCode).toBe(200);
    // Read to the end: the gateway ends the stream (a stream left open would time this test out).
    const ended = await Promise.race([read(() => false).then(() => 'ended'), new Promise((resolve) => setTimeout(() => resolve('still open'), 5_000))]);
    expect(ended).toBe('ended');
  });

  it('reads no further for a client that does not take what was written', async () => {
    const padded = (n: number) => ({ ...event(n), data: { ...event(n).data, padding: 'x'.repeat(2_000) } });
    // Always a full page: the old stream read on at once, page after page, into the client's buffers.
    await restartWith((n) => ({ events: Array.from({ length: 200 }, (_, i) => padded(n * 200 + i)), cursor: String(n) }));
    const { apiKey } = await createAccount(app);
    const abort = new AbortController();
    // The headers read, the body never: the socket's buffers fill, then the gateway's.
    await fetch(`${url}/v1/events`, { headers: bearer(apiKey), signal: abort.signal });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const before = reads.length;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(reads.length - before).toBe(0);
    abort.abort();
  });

  it('leaves nothing running for a client that left before the stream began', async () => {
    let answerFirst: (() => void) | undefined;
    await restartWith(async (n) => {
      if (n === 1) await new Promise<void>((resolve) => (answerFirst = resolve));
      return { events: [], cursor: String(n) };
    });
    const { apiKey } = await createAccount(app);
    const abort = new AbortController();
    const leaving = fetch(`${url}/v1/events`, { headers: bearer(apiKey), signal: abort.signal }).catch(() => 'left');
    await expect.poll(() => answerFirst).toBeDefined();
    abort.abort();
    expect(await leaving).toBe('left');
    await new Promise((resolve) => setTimeout(resolve, 200));
    answerFirst!();
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    // The first read only: no stream polls on for a client that is gone.
    expect(reads).toHaveLength(1);
  });

  it('ends open streams when the gateway closes, instead of waiting for the clients', async () => {
    const { apiKey } = await createAccount(app);
    const response = await fetch(`${url}/v1/events`, { headers: bearer(apiKey) });
    await sse(response)((t) => t.includes(': connected'));
    const closed = app.close().then(() => 'closed');
    const timeout = new Promise((resolve) => setTimeout(() => resolve('still open'), 5_000));
    expect(await Promise.race([closed, timeout])).toBe('closed');
  });
});
