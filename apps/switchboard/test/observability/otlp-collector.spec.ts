import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, currentTraceparent, runInLinkedSpan, runInSpan, startTelemetry } from '@switchboard/telemetry';
import { startOtlpCollector } from '../support/otlp-collector.js';
import type { OtlpCollector } from '../support/otlp-collector.js';

// The end-to-end tests trust this collector's decoding; here it reads what the real OTLP
// http/protobuf exporter of @switchboard/telemetry sends.
describe('the test OTLP collector', () => {
  let collector: OtlpCollector;
  beforeAll(async () => {
    collector = await startOtlpCollector();
  });
  afterAll(() => collector.close());

  it('decodes spans, parents, kinds, links and the service name from real exports', async () => {
    const telemetry = startTelemetry({ serviceName: 'decoder-check', env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint } });
    const stored = await runInSpan('POST /v1/messages/text', { kind: SpanKind.SERVER, attributes: { 'http.response.status_code': 201 } }, () =>
      runInSpan('send sb.v1.messaging.sendText', { kind: SpanKind.PRODUCER }, () => currentTraceparent()),
    );
    await runInLinkedSpan('record receipt', stored, () => {});
    await telemetry.shutdown();
    const [child, server, linked] = collector.spans;
    expect(server).toMatchObject({ service: 'decoder-check', name: 'POST /v1/messages/text', kind: 'server', parentSpanId: undefined, attributes: { 'http.response.status_code': 201 } });
    expect(child).toMatchObject({ name: 'send sb.v1.messaging.sendText', kind: 'producer', traceId: server?.traceId, parentSpanId: server?.spanId });
    expect(linked?.links).toEqual([{ traceId: child?.traceId, spanId: child?.spanId }]);
    expect(linked?.traceId).not.toBe(server?.traceId);
  });
});
