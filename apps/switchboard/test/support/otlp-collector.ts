import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { hex, messages, readFields, text, varintOf } from './protobuf-wire.js';
import type { WireField } from './protobuf-wire.js';

/** One exported span, as an SRE's trace viewer would show it. */
export interface CollectedSpan {
  /** `service.name` of the process that exported it. */
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  /** Start time, milliseconds since the epoch (for ordering). */
  startMs: number;
  kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer' | 'unspecified';
  links: { traceId: string; spanId: string }[];
  attributes: Record<string, string | number | boolean>;
}

export interface OtlpCollector {
  /** `OTEL_EXPORTER_OTLP_ENDPOINT` for the processes under test. */
  readonly endpoint: string;
  readonly spans: CollectedSpan[];
  close(): Promise<void>;
}

const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;

/**
 * A local OTLP/HTTP trace receiver on 127.0.0.1 (`POST /v1/traces`, protobuf, optionally gzip):
 * keeps every span it is sent and answers what a collector answers (200, empty response).
 */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: CollectedSpan[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (request.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      try {
        spans.push(...decodeTraceExport(body));
        response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } catch {
        response.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    spans,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** ExportTraceServiceRequest → ResourceSpans(1) → {Resource(1), ScopeSpans(2) → Span(2)}. */
export function decodeTraceExport(body: Uint8Array): CollectedSpan[] {
  const spans: CollectedSpan[] = [];
  for (const resourceSpans of messages(readFields(body), 1)) {
    const fields = readFields(resourceSpans);
    const resource = messages(fields, 1)[0];
    const service = String((resource ? attributesOf(readFields(resource), 1) : {})['service.name'] ?? '');
    for (const scopeSpans of messages(fields, 2)) {
      for (const span of messages(readFields(scopeSpans), 2)) spans.push(decodeSpan(readFields(span), service));
    }
  }
  return spans;
}

function fixed64(fields: WireField[], field: number): bigint {
  const bytes = messages(fields, field)[0];
  return bytes?.length === 8 ? Buffer.from(bytes).readBigUInt64LE(0) : 0n;
}

/** Span: trace_id 1, span_id 2, parent_span_id 4, name 5, kind 6, start 7, attributes 9, links 13. */
function decodeSpan(fields: WireField[], service: string): CollectedSpan {
  const links = messages(fields, 13).map((link) => {
    const f = readFields(link);
    return { traceId: hex(f, 1) ?? '', spanId: hex(f, 2) ?? '' };
  });
  return {
    service,
    traceId: hex(fields, 1) ?? '',
    spanId: hex(fields, 2) ?? '',
    parentSpanId: hex(fields, 4),
    name: text(fields, 5) ?? '',
    startMs: Number(fixed64(fields, 7)) / 1e6,
    kind: KINDS[varintOf(fields, 6) ?? 0] ?? 'unspecified',
    links,
    attributes: attributesOf(fields, 9),
  };
}

/** KeyValue: key 1, value 2 → AnyValue: string 1, bool 2, int 3 (the types our spans use). */
function attributesOf(fields: WireField[], field: number): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  for (const keyValue of messages(fields, field)) {
    const kv = readFields(keyValue);
    const key = text(kv, 1);
    const value = messages(kv, 2)[0];
    if (key === undefined || value === undefined) continue;
    const v = readFields(value);
    const asText = text(v, 1);
    const asInt = varintOf(v, 3);
    const asBool = varintOf(v, 2);
    attributes[key] = asText ?? asInt ?? (asBool === undefined ? '' : asBool === 1);
  }
  return attributes;
}
