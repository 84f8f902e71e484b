import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { extractTraceContext, injectTraceHeaders, isRecordingSpans, processMetrics, runInSpan, SpanKind, timeAsync, withLogFields } from '@switchboard/telemetry';
import type { RunInSpanOptions } from '@switchboard/telemetry';
import { BusHeader } from './bus.js';
import type { BusHandler, BusHeaders, BusMessage } from './bus.js';
import { failureEnvelope, successEnvelope } from './envelope.js';
import type { ReplyEnvelope } from './envelope.js';

/** `messaging.system` of the spans: `nats`, or ours for the embedded transport. */
export type MessagingSystem = 'nats' | 'in_process';

/** Headers of the message being handled, so calls made by its handler inherit them. */
const inboundHeaders = new AsyncLocalStorage<BusHeaders>();

/** The headers of the bus message whose handler is running, if any. */
export function currentInboundHeaders(): Readonly<BusHeaders> | undefined {
  return inboundHeaders.getStore();
}

/**
 * Headers for an outgoing message: the caller's, with names lowercased; `correlation-id` and
 * `account-id` inherited from the message being handled when the caller gives none (a fresh
 * correlation id otherwise), so one HTTP call keeps one correlation id across services.
 */
export function outgoingHeaders(explicit: BusHeaders | undefined): BusHeaders {
  const headers: BusHeaders = {};
  // for…in, not Object.entries: no array per header on every call.
  for (const name in explicit) headers[name.toLowerCase()] = explicit[name]!;
  const inbound = inboundHeaders.getStore();
  headers[BusHeader.correlationId] ??= inbound?.[BusHeader.correlationId] ?? randomUUID();
  const accountId = inbound?.[BusHeader.accountId];
  if (accountId !== undefined) headers[BusHeader.accountId] ??= accountId;
  return headers;
}

/**
 * Runs `send` inside a PRODUCER span and gives it the headers to put on the wire, with the
 * span's `traceparent`. With telemetry off nothing is injected; an inbound `traceparent` is
 * then passed on unchanged so the services that do trace still join up.
 */
export function withProducerSpan<T>(
  system: MessagingSystem,
  operation: 'send' | 'publish',
  subject: string,
  explicit: BusHeaders | undefined,
  send: (headers: BusHeaders) => Promise<T>,
): Promise<T> {
  // Span options only when spans are recorded: with tracing off a call pays nothing for them.
  const options = isRecordingSpans()
    ? { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': system, 'messaging.operation.type': operation, 'messaging.destination.name': subject } }
    : NO_SPAN_OPTIONS;
  const traced = () =>
    runInSpan(`${operation} ${subject}`, options, () => {
      const headers = injectTraceHeaders(outgoingHeaders(explicit));
      const inboundTraceparent = inboundHeaders.getStore()?.[BusHeader.traceparent];
      if (headers[BusHeader.traceparent] === undefined && inboundTraceparent) headers[BusHeader.traceparent] = inboundTraceparent;
      return send(headers);
    });
  // Round trips only: a publish returns once written, its duration says nothing about anyone.
  if (operation === 'publish') return traced();
  return timeAsync(processMetrics().busRequestDuration, { subject }, traced);
}

/** A handled message's outcome: the reply envelope and the reply headers. */
export interface HandledMessage {
  envelope: ReplyEnvelope;
  headers: BusHeaders;
}

/**
 * Runs `handler` in a CONSUMER span whose parent is the `traceparent` the message carries,
 * with the message's headers as the inbound headers. Never throws: a failure becomes a
 * failure envelope (its code kept only for named errors, see `toRemoteErrorBody`).
 */
export async function handleInbound(
  system: MessagingSystem,
  message: BusMessage,
  handler: BusHandler,
  queue: string | undefined,
): Promise<HandledMessage> {
  const headers: BusHeaders = {};
  const correlationId = message.headers[BusHeader.correlationId];
  if (correlationId) headers[BusHeader.correlationId] = correlationId;
  try {
    const data = await runInSpan(`process ${message.subject}`, consumerSpanOptions(system, message, queue), () => {
      injectTraceHeaders(headers);
      return runAsHandler(message.headers, () => handler(message));
    });
    return { envelope: successEnvelope(data), headers };
  } catch (error) {
    return { envelope: failureEnvelope(error), headers };
  }
}

/**
 * Runs `work` as the handler of a message with `headers`: the calls it makes inherit them
 * (`currentInboundHeaders`), and every line it logs names the account it works for (ids only,
 * never a key).
 */
export function runAsHandler<T>(headers: BusHeaders, work: () => T): T {
  const accountId = headers[BusHeader.accountId];
  const run = () => inboundHeaders.run(headers, work);
  return accountId ? withLogFields({ account_id: accountId }, run) : run();
}

const NO_SPAN_OPTIONS: RunInSpanOptions = {};

/** The CONSUMER span's options: its attributes and the parent the message carries (none when spans are off). */
function consumerSpanOptions(system: MessagingSystem, message: BusMessage, queue: string | undefined): RunInSpanOptions {
  if (!isRecordingSpans()) return NO_SPAN_OPTIONS;
  const attributes: Record<string, string> = {
    'messaging.system': system,
    'messaging.operation.type': 'process',
    'messaging.destination.name': message.subject,
  };
  if (queue) attributes['messaging.consumer.group.name'] = queue;
  return { kind: SpanKind.CONSUMER, attributes, parent: extractTraceContext(message.headers) };
}
