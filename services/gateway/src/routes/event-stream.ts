import { EventStreamQuery, EventsSubjects, PublicEventId, publicEventsWakeSubject } from '@switchboard/contracts';
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
 * now. New events come on the events service's wake-up, or at the next poll.
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
  const heartbeat = setInterval(() => raw.write(': heartbeat\n\n'), HEARTBEAT_MS);
  let subscription: BusSubscription | undefined;
  const end = () => {
    open = false;
    wake?.();
  };
  raw.once('close', end);
  streams.add(end);
  try {
    subscription = await app.gateway.bus.subscribe(publicEventsWakeSubject(accountId), () => wake?.());
    while (open) {
      for (const event of page.events) raw.write(sseFrame(event));
      if (page.events.length < PAGE) await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, POLL_MS);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
      if (!open) break;
      page = await read({ cursor: page.cursor }).catch((error: unknown) => {
        ctx.logger.warn({ err: error }, 'event stream read failed; retrying');
        return { events: [], cursor: page.cursor };
      });
    }
  } finally {
    streams.delete(end);
    clearInterval(heartbeat);
    await subscription?.unsubscribe().catch(() => undefined);
    raw.end();
  }
}
