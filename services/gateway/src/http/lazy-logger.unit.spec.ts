import { Writable } from 'node:stream';
import { createLogger } from '@switchboard/telemetry';
import { describe, expect, it, vi } from 'vitest';
import { LazyChildLogger } from './lazy-logger.js';

function capture(level: 'info' | 'warn') {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(JSON.parse(chunk.toString())), done()) });
  const root = createLogger({ service: 'gateway-test', level, destination });
  return { root, lines, child: vi.spyOn(root, 'child') };
}

describe('LazyChildLogger, the logger of one request', () => {
  it('makes no child logger for a request that logs nothing at the enabled level', () => {
    const { root, lines, child } = capture('warn');
    const log = new LazyChildLogger(root, { reqId: 'r1' }).child({ account_id: 'acc_1' });
    log.info('incoming request');
    log.debug({ detail: 1 }, 'details');
    expect([child.mock.calls.length, lines.length]).toEqual([0, 0]);
  });

  it('writes what a child would, once it logs: its bindings, its level, redaction', async () => {
    const { root, lines, child } = capture('info');
    const log = new LazyChildLogger(root, { reqId: 'r1' }).child({ account_id: 'acc_1' });
    log.info({ headers: { authorization: 'Bearer sbk_secret' } }, 'incoming request');
    log.warn('slow');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lines.map((l) => [l['msg'], l['reqId'], l['account_id'], l['level']])).toEqual([
      ['incoming request', 'r1', 'acc_1', 'info'],
      ['slow', 'r1', 'acc_1', 'warn'],
    ]);
    expect(JSON.stringify(lines)).not.toContain('sbk_secret');
    // Each level of the chain made its child once (pino's children share the spied method), not per line.
    expect(child).toHaveBeenCalledTimes(2);
  });
});
