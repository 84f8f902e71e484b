import { createRequire } from 'node:module';
import { Socket } from 'node:net';
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

describe('NatsBus writes (nats-core as patched: patches/@nats-io+nats-core+3.4.0.patch)', () => {
  it('writes the requests made by many callbacks of one turn of the event loop in one write', async () => {
    const bus = await NatsBus.connect({ servers: SHARED_NATS, name: 'bus-writes' });
    const subject = `${uniquePrefix()}.messaging.get`;
    await bus.subscribe(subject, (message) => message.data);
    await bus.request(subject, { warm: true }, { timeoutMs: 2_000 });
    const natsPort = Number(new URL(SHARED_NATS).port || 4222);
    const write = Socket.prototype.write;
    let writes = 0;
    Socket.prototype.write = function (this: Socket, ...args: unknown[]) {
      if (this.remotePort === natsPort) writes += 1;
      return (write as (...a: unknown[]) => boolean).apply(this, args);
    } as typeof write;
    try {
      // Twenty callbacks in one timers phase, as twenty HTTP requests read in one turn: each is its
      // own macrotask, with the microtasks drained after it.
      const answers = await new Promise<Promise<unknown>[]>((resolve) => {
        const asked: Promise<unknown>[] = [];
        for (let i = 0; i < 20; i++) setTimeout(() => {
          asked.push(bus.request(subject, { i }, { timeoutMs: 2_000 }));
          if (asked.length === 20) resolve(asked);
        }, 0);
      });
      expect((await Promise.all(answers)).map((reply) => (reply as { data: unknown }).data)).toEqual(Array.from({ length: 20 }, (_, i) => ({ i })));
      // The requests' frames in one write (nats.js wrote each callback's on its own: twenty), the
      // replies the responder wrote back likewise few.
      expect(writes).toBeLessThanOrEqual(4);
    } finally {
      Socket.prototype.write = write;
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
