import { createLogger } from '@switchboard/telemetry';
import { describe, expect, it } from 'vitest';
import { startMetricsEndpoint } from '../src/observability.js';

const logger = createLogger({ service: 'test', level: 'silent' });

describe("a service process's /metrics port (SWITCHBOARD_METRICS_PORT)", () => {
  it('binds loopback when SWITCHBOARD_HOST is unset, and answers there', async () => {
    const server = await startMetricsEndpoint({ host: undefined, metricsPort: 0 }, logger);
    try {
      expect(server?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const response = await fetch(server!.url);
      expect(response.status).toBe(200);
    } finally {
      await server?.close();
    }
  });

  it('binds SWITCHBOARD_HOST when set', async () => {
    const server = await startMetricsEndpoint({ host: '::1', metricsPort: 0 }, logger);
    try {
      expect(server?.url).toMatch(/^http:\/\/\[::1\]:\d+\/metrics$/);
    } finally {
      await server?.close();
    }
  });

  it('is not started when the variable is unset', async () => {
    expect(await startMetricsEndpoint({ host: undefined, metricsPort: undefined }, logger)).toBeUndefined();
  });
});
