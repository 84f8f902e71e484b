import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inMemorySpans } from './in-memory.js';
import { createLogger, REDACTED, withLogFields } from './logger.js';
import { runInSpan } from './spans.js';
import { startTelemetry } from './start.js';
import type { TelemetryHandle } from './start.js';

/** A pino destination that keeps every JSON line it is given. */
function captureLines(): { stream: Writable; lines: () => Record<string, unknown>[] } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  const lines = () => chunks.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
  return { stream, lines };
}

describe('createLogger', () => {
  let telemetry: TelemetryHandle;
  beforeAll(() => {
    telemetry = startTelemetry({ serviceName: 'logger-test', env: {}, spanProcessors: [inMemorySpans().processor] });
  });
  afterAll(() => telemetry.shutdown());

  it('tags lines written inside a span with its trace_id and span_id', async () => {
    const { stream, lines } = captureLines();
    const logger = createLogger({ service: 'messaging', destination: stream });
    const ids = await runInSpan('send message', {}, (span) => {
      logger.info('sending');
      return span.spanContext();
    });
    logger.info('outside');
    const [inside, outside] = lines();
    expect(inside).toMatchObject({ service: 'messaging', level: 'info', msg: 'sending', trace_id: ids.traceId, span_id: ids.spanId });
    expect(outside).not.toHaveProperty('trace_id');
  });

  it('redacts credentials, API keys and message bodies wherever they sit', () => {
    const { stream, lines } = captureLines();
    const logger = createLogger({ service: 'gateway', destination: stream });
    logger.info(
      {
        req: { headers: { authorization: 'Bearer sk_live_1', 'x-api-key': 'sk_live_2', accept: 'json' } },
        apiKey: 'sk_live_3',
        session: { credentials: { noiseKey: 'secret' } },
        payload: { message: { text: 'hello mum', caption: 'holiday', media: 'base64...' }, to: '+4915' },
      },
      'request',
    );
    const line = JSON.stringify(lines()[0]);
    for (const secret of ['sk_live_1', 'sk_live_2', 'sk_live_3', 'noiseKey', 'hello mum', 'holiday', 'base64']) {
      expect(line).not.toContain(secret);
    }
    expect(lines()[0]).toMatchObject({
      req: { headers: { authorization: REDACTED, 'x-api-key': REDACTED, accept: 'json' } },
      apiKey: REDACTED,
      payload: { message: { text: REDACTED }, to: '+4915' },
    });
  });

  it('adds account_id to every line written inside withLogFields, by any logger', () => {
    const { stream, lines } = captureLines();
    const logger = createLogger({ service: 'quota', destination: stream });
    withLogFields({ account_id: 'acc_1' }, () => logger.child({ component: 'reserve' }).info('reserved'));
    logger.info('idle');
    expect(lines()[0]).toMatchObject({ account_id: 'acc_1', component: 'reserve', msg: 'reserved' });
    expect(lines()[1]).not.toHaveProperty('account_id');
  });

  it('redacts message content and Signal key material nested in commands', () => {
    const { stream, lines } = captureLines();
    const logger = createLogger({ service: 'sessions', destination: stream });
    logger.warn({ command: { content: { type: 'text', text: 'see you at 8' } }, creds: { noiseKey: 'nk' }, config: { secretKey: 'k1' } }, 'x');
    const line = JSON.stringify(lines()[0]);
    for (const secret of ['see you at 8', 'nk', 'k1']) expect(line).not.toContain(secret);
  });
});
