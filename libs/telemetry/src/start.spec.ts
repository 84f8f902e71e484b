import { context, trace } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { contextFromTraceparent, currentTraceparent } from './propagation.js';
import { runInSpan } from './spans.js';
import { batchOptionsFromEnv, isRecordingSpans, isTelemetryEnabled, otlpTracesUrl, startTelemetry } from './start.js';

describe('startTelemetry', () => {
  it('stays off when no OTLP endpoint or traces exporter is configured', async () => {
    const telemetry = startTelemetry({ serviceName: 'quota', env: { OTEL_SERVICE_NAME: 'quota', PATH: '/bin' } });
    expect(telemetry.enabled).toBe(false);
    expect(isRecordingSpans()).toBe(false);
    const traceparent = await runInSpan('work', {}, () => currentTraceparent());
    expect(traceparent).toBeUndefined();
    expect(trace.getActiveSpan()).toBeUndefined();
    // No span is made: work gets one that records nothing, and its failure reaches the caller.
    await expect(runInSpan('work', {}, (span) => (span.isRecording() ? 'recording' : 'not recording'))).resolves.toBe('not recording');
    await expect(runInSpan('work', {}, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await telemetry.shutdown();
  });

  it('turns on for an endpoint or an exporter name, unless the SDK is disabled', () => {
    expect(isTelemetryEnabled({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }, false)).toBe(true);
    expect(isTelemetryEnabled({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' }, false)).toBe(true);
    expect(isTelemetryEnabled({ OTEL_TRACES_EXPORTER: 'console' }, false)).toBe(true);
    expect(isTelemetryEnabled({ OTEL_TRACES_EXPORTER: '  ' }, false)).toBe(false);
    expect(isTelemetryEnabled({ OTEL_TRACES_EXPORTER: 'otlp', OTEL_SDK_DISABLED: 'true' }, false)).toBe(false);
    expect(isTelemetryEnabled({}, true)).toBe(true);
  });

  it('starts an SDK that passes an incoming traceparent on even when it exports nothing', async () => {
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const telemetry = startTelemetry({ serviceName: 'quota', env: { OTEL_TRACES_EXPORTER: 'none' } });
    expect(telemetry.enabled).toBe(true);
    expect(isRecordingSpans()).toBe(true);
    expect(context.with(contextFromTraceparent(incoming), () => currentTraceparent())).toBe(incoming);
    await telemetry.shutdown();
    expect(isRecordingSpans()).toBe(false);
    expect(context.with(contextFromTraceparent(incoming), () => currentTraceparent())).toBeUndefined();
  });

  it('derives the OTLP traces URL the way the spec says', () => {
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/' })).toBe('http://collector:4318/v1/traces');
    expect(otlpTracesUrl({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom' })).toBe('http://c:4318/custom');
  });

  it('reads the OTEL_BSP_* batching variables and ignores nonsense', () => {
    expect(batchOptionsFromEnv({ OTEL_BSP_SCHEDULE_DELAY: '100', OTEL_BSP_MAX_QUEUE_SIZE: '4096', OTEL_BSP_EXPORT_TIMEOUT: 'soon', OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '' }))
      .toEqual({ scheduledDelayMillis: 100, maxQueueSize: 4096 });
    expect(batchOptionsFromEnv({})).toEqual({});
  });
});
