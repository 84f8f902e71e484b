import { SpanKind, trace } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { contextFromTraceparent, currentTraceparent, extractTraceContext, injectTraceHeaders } from './propagation.js';
import { inMemorySpans } from './in-memory.js';
import { runInLinkedSpan, runInRootSpan, runInSpan } from './spans.js';
import { startTelemetry } from './start.js';
import type { TelemetryHandle } from './start.js';

describe('W3C propagation through a header carrier', () => {
  const spans = inMemorySpans();
  const finishedSpans = () => spans.finished();
  let telemetry: TelemetryHandle;
  beforeAll(() => {
    telemetry = startTelemetry({ serviceName: 'propagation-test', env: {}, spanProcessors: [spans.processor] });
  });
  afterAll(() => telemetry.shutdown());
  beforeEach(() => spans.reset());

  it('makes the receiving span a child of the sending span', async () => {
    const headers: Record<string, string> = { 'correlation-id': 'c-1' };
    await runInSpan('send sb.v1.quota.reserve', { kind: SpanKind.PRODUCER }, () => injectTraceHeaders(headers));
    expect(headers['traceparent']).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);

    await runInSpan('process sb.v1.quota.reserve', { kind: SpanKind.CONSUMER, parent: extractTraceContext(headers) }, () => {});
    const [producer, consumer] = await finishedSpans();
    expect(consumer?.spanContext().traceId).toBe(producer?.spanContext().traceId);
    expect(consumer?.parentSpanContext?.spanId).toBe(producer?.spanContext().spanId);
  });

  it('round-trips currentTraceparent through contextFromTraceparent', async () => {
    const stored = await runInSpan('accept message', {}, () => currentTraceparent());
    const restored = trace.getSpanContext(contextFromTraceparent(stored));
    const [accepted] = await finishedSpans();
    expect(restored).toMatchObject({ traceId: accepted?.spanContext().traceId, spanId: accepted?.spanContext().spanId, isRemote: true });
  });

  it('links later work to the stored traceparent instead of parenting it', async () => {
    const stored = await runInSpan('send message', {}, () => currentTraceparent());
    await runInLinkedSpan('apply receipt', stored, () => {});
    const [sent, receipt] = await finishedSpans();
    expect(receipt?.parentSpanContext).toBeUndefined();
    expect(receipt?.links[0]?.context).toMatchObject({ traceId: sent?.spanContext().traceId, spanId: sent?.spanContext().spanId });
  });

  it('starts a new trace for network events even inside a long-gone request span', async () => {
    await runInSpan('POST /v1/sessions', {}, () => runInRootSpan('chat receipt', {}, () => {}));
    const [receipt, request] = await finishedSpans();
    expect(receipt?.parentSpanContext).toBeUndefined();
    expect(receipt?.spanContext().traceId).not.toBe(request?.spanContext().traceId);
  });

  it('gives no traceparent outside a span and ignores malformed ones', () => {
    expect(currentTraceparent()).toBeUndefined();
    expect(trace.getSpanContext(contextFromTraceparent('00-garbage'))).toBeUndefined();
  });
});
