/**
 * A fuzz-like burst of malformed and odd requests, the same every run (seeded): what a hostile
 * client or a broken integration sends. Each request is either an HTTP exchange (`fetch`) or raw
 * bytes on a socket, for what `fetch` refuses to send (NUL bytes, Content-Length with
 * Transfer-Encoding, bad chunks, request lines over the header limit, bodies cut short).
 */
import { connect } from 'node:net';

export type OddRequest =
  | { kind: 'http'; method: string; path: string; headers: Record<string, string>; body?: string }
  | { kind: 'raw'; bytes: Buffer };

/** Who the burst talks to: a valid key and session, so some requests get past authentication. */
export interface Target {
  host: string;
  port: number;
  apiKey: string;
  sessionId: string;
}

/** mulberry32: a small seeded PRNG, so a run can be repeated exactly. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const between = (random: Random, low: number, high: number) => low + Math.floor(random() * (high - low + 1));
const text = (random: Random, length: number, alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789') =>
  Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');

const ROUTES = ['/v1/messages/text', '/v1/messages/media', '/v1/messages/location', '/v1/messages/buttons', '/v1/sessions', '/api/v1/messages/text'];
const ODD_SEGMENTS = ['%', '%zz', '%00', '%2e%2e', '..', '%E2%82', 'ü', '😀', '%25', ';', '~', '%ff%fe'];

/** Share of big refused bodies (2 to 23 MiB) in the burst. */
const BIG_SHARE = 1 / 30;

/** One odd request, chosen by `random`: small ones, and now and then a big body (bigOddRequest). */
export function oddRequest(random: Random, target: Target): OddRequest {
  if (random() < BIG_SHARE) return bigOddRequest(random, target);
  const auth = { authorization: `Bearer ${target.apiKey}` };
  const json = { ...auth, 'content-type': 'application/json' };
  const cases: (() => OddRequest)[] = [
    // Paths the router has to refuse: odd escapes, unknown routes, parameters of every length.
    () => ({ kind: 'http', method: pick(random, ['GET', 'DELETE', 'PATCH']), path: `/v1/sessions/${pick(random, ODD_SEGMENTS)}${text(random, between(random, 0, 20))}`, headers: auth }),
    () => ({ kind: 'http', method: 'GET', path: `/v1/messages/${text(random, between(random, 50, 6_000))}`, headers: auth }),
    () => ({ kind: 'http', method: pick(random, ['GET', 'POST', 'PUT']), path: `/${text(random, between(random, 1, 3))}/${text(random, between(random, 1, 40), 'abc/%._-')}`, headers: {} }),
    // Bodies that are not JSON, or JSON of the wrong shape, depth or size.
    () => ({ kind: 'http', method: 'POST', path: pick(random, ROUTES), headers: json, body: `{"sessionId": "${target.sessionId}", "to": ` }),
    () => ({ kind: 'http', method: 'POST', path: pick(random, ROUTES), headers: json, body: '['.repeat(between(random, 100, 20_000)) }),
    () => ({ kind: 'http', method: 'POST', path: '/v1/messages/text', headers: json, body: '{"__proto__": {"admin": true}, "sessionId": 1}' }),
    () => ({ kind: 'http', method: 'POST', path: '/v1/messages/text', headers: json, body: JSON.stringify({ sessionId: target.sessionId, to: text(random, 12, '0123456789+ -'), text: text(random, between(random, 1, 200_000)) }) }),
    () => ({ kind: 'http', method: 'POST', path: '/v1/messages/media', headers: json, body: JSON.stringify({ sessionId: target.sessionId, to: '15550001111', mediaType: pick(random, ['image', 'video', 'sticker']), media: text(random, between(random, 1_000, 1_500_000), 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=!') }) }),
    () => ({ kind: 'http', method: 'POST', path: pick(random, ROUTES), headers: { ...auth, 'content-type': pick(random, ['text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']) }, body: text(random, between(random, 0, 5_000)) }),
    // Keys: unknown ones (each a lookup), malformed headers, idempotency keys of every shape.
    () => ({ kind: 'http', method: 'GET', path: '/v1/sessions', headers: { authorization: pick(random, [`Bearer sbk_${text(random, 43)}`, `Bearer ${text(random, between(random, 0, 300))}`, 'Basic Zm9vOmJhcg==', 'Bearer']) } }),
    () => ({ kind: 'http', method: 'POST', path: '/v1/messages/text', headers: { ...json, 'idempotency-key': text(random, between(random, 0, 400), 'ab-_:. ü') }, body: JSON.stringify({ sessionId: `ses_${text(random, 26, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')}`, to: '15550001111', text: 'x' }) }),
    // What only a raw socket sends: node's HTTP parser refuses it before any handler runs.
    () => ({ kind: 'raw', bytes: Buffer.from(`GET /v1/sessions/\0${text(random, 5)} HTTP/1.1\r\nHost: x\r\n\r\n`) }),
    () => ({ kind: 'raw', bytes: Buffer.from(`GET /v1/sessions HTTP/1.1\r\nHost: x\r\nX-Odd: a\0b\r\n\r\n`) }),
    () => ({ kind: 'raw', bytes: Buffer.from('POST /v1/messages/text HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n') }),
    () => ({ kind: 'raw', bytes: Buffer.from('POST /v1/messages/text HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n') }),
    () => ({ kind: 'raw', bytes: Buffer.from(`GET /${'a'.repeat(between(random, 17_000, 40_000))} HTTP/1.1\r\nHost: x\r\n\r\n`) }),
    () => ({ kind: 'raw', bytes: Buffer.from(`GET / HTTP/1.1\r\nHost: x\r\n${'X-Pad: '.concat('p'.repeat(8_000), '\r\n').repeat(3)}\r\n`) }),
    () => ({ kind: 'raw', bytes: Buffer.from(`POST /v1/messages/text HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${target.apiKey}\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n{"sessionId": "${'x'.repeat(between(random, 10, 60_000))}`) }),
    () => ({ kind: 'raw', bytes: Buffer.from(text(random, between(random, 1, 200), 'GET/ \r\n\0HTTP1.x')) }),
  ];
  return pick(random, cases)();
}

/** A body of 2 to 23 MiB that is refused: cut-off JSON, an image over its cap or junk media, a text far too long. */
function bigOddRequest(random: Random, target: Target): OddRequest {
  const headers = { authorization: `Bearer ${target.apiKey}`, 'content-type': 'application/json' };
  const filler = 'QUJD'.repeat((between(random, 2, 23) * 2 ** 20) / 4);
  const fields = { sessionId: target.sessionId, to: '15550001111' };
  const body = pick(random, [
    () => `{"sessionId": "${target.sessionId}", "mediaType": "image", "media": "${filler}`,
    () => JSON.stringify({ ...fields, mediaType: pick(random, ['image', 'video', 'document']), media: filler }),
    () => JSON.stringify({ ...fields, text: filler }),
  ])();
  return { kind: 'http', method: 'POST', path: body.includes('"text"') ? '/v1/messages/text' : '/v1/messages/media', headers, body };
}

/** Sends one odd request: the status it got (`closed` when the server hung up without one). Never rejects. */
export async function sendOdd(request: OddRequest, target: Target): Promise<string> {
  if (request.kind === 'raw') return sendRaw(request.bytes, target);
  const init: RequestInit = { method: request.method, headers: request.headers, signal: AbortSignal.timeout(15_000) };
  if (request.body !== undefined) init.body = request.body;
  return fetch(`http://${target.host}:${target.port}${request.path}`, init).then(
    async (response) => {
      await response.arrayBuffer();
      return String(response.status);
    },
    () => 'closed',
  );
}

/** Writes `bytes`, then waits (up to 3 s) for the server to answer or close, and hangs up. */
function sendRaw(bytes: Buffer, target: Target): Promise<string> {
  return new Promise((resolve) => {
    let status = 'closed';
    const socket = connect(target.port, target.host, () => socket.end(bytes));
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(status);
    };
    const timer = setTimeout(done, 3_000);
    socket.on('data', (chunk: Buffer) => {
      status = /^HTTP\/1\.[01] (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? status;
    });
    socket.on('close', done);
    socket.on('error', done);
  });
}
