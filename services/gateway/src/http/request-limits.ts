import { ApiError } from '@switchboard/contracts';
import type { FastifyInstance } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { finished, Transform } from 'node:stream';
import type { Readable } from 'node:stream';

/** How slow a client may be before its connection is answered 408 and closed. */
export interface RequestLimits {
  /** The whole request, head and body, must arrive within this (node's `requestTimeout`). */
  readonly requestTimeoutMs: number;
  /** Average body rate a client must keep once `bodyGraceMs` have passed since the body was first read. */
  readonly minBodyBytesPerSecond: number;
  readonly bodyGraceMs: number;
}

/**
 * 120 s for the whole request: the largest body (24 MiB) needs about 210 KB/s, a small JSON body
 * any link at all. Below 1 KiB/s on average after 10 s a body is not coming (a client stalled,
 * or holding a connection and its buffers on purpose) and is cut long before the 120 s.
 */
export const REQUEST_LIMITS: RequestLimits = { requestTimeoutMs: 120_000, minBodyBytesPerSecond: 1_024, bodyGraceMs: 10_000 };

/**
 * How often node checks its connections against the timeout (its default, 30 s, would let a
 * client overrun by that much), and how often the floor is checked.
 */
const CHECK_EVERY_MS = 1_000;

/** Node's own limit for the request head. */
const HEADERS_TIMEOUT_MS = 60_000;

/** The head's timeout: node's, but never over the whole request's (node swaps the two otherwise, and the body goes unbounded). */
export function headersTimeoutMs(limits: RequestLimits): number {
  return Math.min(HEADERS_TIMEOUT_MS, limits.requestTimeoutMs);
}

/** Fastify options that make node's HTTP server enforce the timeouts. */
export function serverTimeouts(limits: RequestLimits): {
  requestTimeout: number;
  http: { connectionsCheckingInterval: number; headersTimeout: number };
} {
  return { requestTimeout: limits.requestTimeoutMs, http: { connectionsCheckingInterval: CHECK_EVERY_MS, headersTimeout: headersTimeoutMs(limits) } };
}

/** RFC 9112 §6.3: a request has a body exactly when it says Transfer-Encoding or a Content-Length above 0. */
export function carriesBody(headers: IncomingHttpHeaders): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0;
}

/** Has a body that has been read for `elapsedMs` fallen below the floor? Never within the grace period. */
export function belowFloor(receivedBytes: number, elapsedMs: number, limits: RequestLimits): boolean {
  return elapsedMs >= limits.bodyGraceMs && receivedBytes * 1000 < limits.minBodyBytesPerSecond * elapsedMs;
}

function tooSlow(limits: RequestLimits): ApiError {
  return new ApiError('REQUEST_TIMEOUT', `The request body arrived slower than ${limits.minBodyBytesPerSecond} bytes/s.`, {
    minBytesPerSecond: limits.minBodyBytesPerSecond,
    graceSeconds: limits.bodyGraceMs / 1000,
  });
}

/**
 * The body-rate floor: a body below it fails with 408 REQUEST_TIMEOUT through fastify's own
 * path (the parser's error, answered in the envelope with `Connection: close`). Runs after the
 * `onRequest` hooks (auth), so the clock starts when the body is actually read.
 */
export function installBodyRateFloor(app: FastifyInstance, limits: RequestLimits): void {
  // A callback hook: it runs on every request, bodiless GETs included, and never waits.
  app.addHook('preParsing', (request, reply, payload, done) => {
    if (!carriesBody(request.headers)) return done(null, payload);
    const metered = meterBody(payload, limits);
    reply.raw.once('close', () => metered.destroy());
    done(null, metered);
  });
}

/** `source` passed through, counted; destroyed with REQUEST_TIMEOUT when it falls below the floor. */
function meterBody(source: Readable, limits: RequestLimits): Readable {
  const startedAt = performance.now();
  let received = 0;
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      done(null, chunk);
    },
  });
  const check = setInterval(() => {
    if (belowFloor(received, performance.now() - startedAt, limits)) meter.destroy(tooSlow(limits));
  }, CHECK_EVERY_MS);
  meter.once('close', () => clearInterval(check));
  // Once fastify stops reading (a 413, the answer sent) a late error has nobody left to tell.
  meter.on('error', () => undefined);
  finished(source, (error) => {
    if (error) meter.destroy(error);
  });
  source.pipe(meter);
  return meter;
}
