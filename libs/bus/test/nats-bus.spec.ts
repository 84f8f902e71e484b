import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import { describe, expect, it } from 'vitest';
import type { Bus } from '../src/bus.js';
import { BusUnavailableError } from '../src/errors.js';
import { NatsBus } from '../src/nats-bus.js';
import { busContract } from './bus.contract.js';
import { closedLoopbackPort } from '../src/testing/index.js';
import { uniquePrefix } from './support.js';

/** The shared NATS server of this machine; tests only use subjects under a unique prefix. */
const SHARED_NATS = process.env['SWITCHBOARD_NATS_URL'] ?? 'nats://127.0.0.1:4222';

busContract('nats', async () => {
  const connections: Bus[] = [];
  return {
    connect: async () => {
      const bus = await NatsBus.connect({ servers: SHARED_NATS, name: 'bus-contract' });
      connections.push(bus);
      return bus;
    },
    close: async () => void (await Promise.all(connections.map((bus) => bus.close()))),
  };
});

describe('NatsBus with clients that do not speak the envelope', () => {
  it('answers a request whose payload is not JSON with MALFORMED_PAYLOAD', async () => {
    const bus = await NatsBus.connect({ servers: SHARED_NATS, name: 'bus-malformed' });
    const raw = await connect({ servers: SHARED_NATS });
    const subject = `${uniquePrefix()}.quota.reserve`;
    await bus.subscribe(subject, () => 'unreachable');
    const reply = await raw.request(subject, new TextEncoder().encode('{not json'), { timeout: 2_000 });
    expect(JSON.parse(new TextDecoder().decode(reply.data))).toEqual({ ok: false, error: { code: 'MALFORMED_PAYLOAD', message: 'payload is not JSON' } });
    await Promise.all([raw.close(), bus.close()]);
  });
});

describe('NatsBus requests (nats-core as patched: patches/@nats-io+nats-core+3.4.0.patch)', () => {
  it('builds no error for an answered request, and still fails an unanswered one', async () => {
    // nats-core's own module instance (the one its request code reads `RequestError` from at each
    // use), reached by file path: the package exports only its entry points.
    const require = createRequire(import.meta.url);
    const errors = require(join(dirname(require.resolve('@nats-io/nats-core')), 'errors.js')) as { RequestError: new (...args: unknown[]) => Error };
    const original = errors.RequestError;
    let built = 0;
    errors.RequestError = class extends original {
      constructor(...args: unknown[]) {
        super(...args);
        built += 1;
      }
    };
    const bus = await NatsBus.connect({ servers: SHARED_NATS, name: 'bus-request-errors' });
    try {
      const subject = `${uniquePrefix()}.quota.reserve`;
      await bus.subscribe(subject, (message) => message.data);
      for (let i = 0; i < 20; i++) expect((await bus.request(subject, { i }, { timeoutMs: 2_000 })).data).toEqual({ i });
      // Each used to reject its settled promise with a new "cancelled" RequestError: a stack trace per request.
      expect(built).toBe(0);
      await expect(bus.request(`${uniquePrefix()}.nobody.home`, {}, { timeoutMs: 2_000 })).rejects.toMatchObject({ name: 'NoResponderError' });
    } finally {
      errors.RequestError = original;
      await bus.close();
    }
  });
});

describe('NatsBus connect', () => {
  it('fails fast with BusUnavailableError when NATS is unreachable', async () => {
    const port = await closedLoopbackPort();
    const started = Date.now();
    const failure = await NatsBus.connect({ servers: `nats://127.0.0.1:${port}` }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BusUnavailableError);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('reports its server and connection state', async () => {
    const bus = await NatsBus.connect({ servers: SHARED_NATS, name: 'bus-health' });
    expect(bus.health()).toMatchObject({ transport: 'nats', connected: true, server: expect.stringContaining('127.0.0.1') });
    await bus.close();
    expect(bus.health().connected).toBe(false);
  });
});
