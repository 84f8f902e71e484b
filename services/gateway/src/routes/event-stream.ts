import { EventStreamQuery, EventsSubjects, PublicEventId, isApiError, publicEventsWakeSubject } from '@switchboard/contracts';
import type { EndpointContract, EventStreamPage, PublicEvent } from '@switchboard/contracts';
import type { BusSubscription } from '@switchboard/bus';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { defineStreamRoute } from './kit.js';
import type { StreamRouteContext } from './kit.js';

/** GET /v1/events: not in the JSON endpoint tables (its body is a stream of SSE frames). */
export const EVENT_STREAM_ENDPOINT = {
  method: 'GET',
  path: '/v1/events',
  status: 200,
  query: EventStreamQuery,
  response: z.unknown(),
} as const satisfies EndpointContract;

/** A comment line this often keeps proxies and clients from closing a quiet stream. */
export const HEARTBEAT_MS = 15_000;
/** Looked for this often besides the events service's wake-ups (a lost wake-up only delays). */
const POLL_MS = 1_000;
const PAGE = 200;

/** One SSE frame: `id:` the event id, `event:` its type, `data:` the event JSON (one line). */
export function sseFrame(event: PublicEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * The live stream of an account's events. With `Last-Event-ID` it starts right after that event
 * (from the events service's feed, so nothing is missed across a gateway restart), otherwise from
 * now. New events come on the events service's wake-up, or at the next poll. The stream ends when
 * its key is revoked or its account closed (checked before every read, as every request checks
 * it), and reads no further while the client has not taken what was written (a slow or stalled
 * reader holds one page, not the account's backlog).
 */
export function registerEventStreamRoute(app: FastifyInstance): void {
  // Open streams end when the gateway closes: a shutdown must not wait for clients to leave.
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of open) end();
  });
  defineStreamRoute(app, EVENT_STREAM_ENDPOINT, (ctx) => stream(app, ctx, open));
}

async function stream(app: FastifyInstance, ctx: StreamRouteContext<typeof EVENT_STREAM_ENDPOINT>, streams: Set<() => void>): Promise<void> {
  const accountId = ctx.accountId;
  const lastEventId = PublicEventId.safeParse(ctx.request.headers['last-event-id']);
  const filters = { ...(ctx.query.types ? { types: ctx.query.types } : {}), ...(ctx.query.sessionId ? { sessionId: ctx.query.sessionId } : {}) };
  const read = (from: { after?: string; cursor?: string }): Promise<EventStreamPage> =>
    ctx.call(EventsSubjects.readStream, { accountId, ...from, ...filters, limit: PAGE });
  // Read before answering: an unreachable events service is a 503 envelope, not an empty stream.
  let page = await read(lastEventId.success ? { after: lastEventId.data } : {});

  ctx.reply.hijack();
  const raw = ctx.reply.raw;
  raw.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive', 'x-request-id': ctx.requestId });
  raw.write(': connected\n\n');
  let open = true;
  let wake: (() => void) | undefined;
  // Not added to what the client has not read yet: it is there to keep a quiet stream open.
  const heartbeat = setInterval(() => {
    if (!raw.writableNeedDrain) raw.write(': heartbeat\n\n');
  }, HEARTBEAT_MS);
  let subscription: BusSubscription | undefined;
  const end = () => {
    open = false;
    wake?.();
  };
  const drained = () => wake?.();
  raw.once('close', end);
  raw.on('drain', drained);
  // The client may have left while the first page was read: its 'close' came before the listener.
  if (raw.destroyed) end();
  streams.add(end);
  try {
    subscription = await app.gateway.bus.subscribe(publicEventsWakeSubject(accountId), () => wake?.());
    while (open) {
      for (const event of page.events) raw.write(sseFrame(event));
      // A full page (more may be waiting), and a client that took what was written: read on at once.
      const readOnNow = page.events.length === PAGE && !raw.writableNeedDrain;
      page = { ...page, events: [] };
      if (!readOnNow) await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      if (!open || !(await keyStillValid(app, ctx))) break;
      // The client has not taken what was written yet: nothing more until it has (drain, or the next look).
      if (raw.writableNeedDrain) continue;
      page = await read({ cursor: page.cursor }).catch((error: unknown) => {
        ctx.logger.warn({ err: error }, 'event stream read failed; retrying');
        return { events: [], cursor: page.cursor };
      });
    }
  } finally {
    streams.delete(end);
    raw.off('drain', drained);
    clearInterval(heartbeat);
    await subscription?.unsubscribe().catch(() => undefined);
    raw.end();
  }
}

/**
 * Whether the stream's key still authenticates: a revoked key or a closed account ends the stream;
 * a quota service that cannot answer right now does not (the next look asks again).
 */
async function keyStillValid(app: FastifyInstance, ctx: StreamRouteContext<typeof EVENT_STREAM_ENDPOINT>): Promise<boolean> {
  try {
    await app.gateway.auth.authenticate(ctx.request.headers.authorization, { requestId: ctx.requestId, traceContext: ctx.request.sbTrace.context });
    return true;
  } catch (error) {
    return !(isApiError(error) && (error.code === 'UNAUTHORIZED' || error.code === 'FORBIDDEN'));
  }
}
