import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BusUnavailableError, ConnectionLostError } from '../src/errors.js';
import { NatsBus } from '../src/nats-bus.js';
import { PrivateNatsServer } from '../src/testing/index.js';
import { eventually } from './support.js';

describe('NatsBus across a NATS server restart', () => {
  let server: PrivateNatsServer;
  beforeAll(async () => {
    server = await PrivateNatsServer.start();
  });
  afterAll(() => server.stop());

  it('reports the outage, then reconnects and serves requests again', async () => {
    const responder = await NatsBus.connect({ servers: server.url, name: 'reconnect-responder' });
    const caller = await NatsBus.connect({ servers: server.url, name: 'reconnect-caller' });
    await responder.subscribe('sb.v1.quota.ping', () => 'pong', { queue: 'quota' });
    await expect(caller.request('sb.v1.quota.ping', {}, { timeoutMs: 1_000 })).resolves.toMatchObject({ data: 'pong' });

    await server.stop();
    await eventually(() => expect(caller.isConnected()).toBe(false));
    const started = Date.now();
    await expect(caller.request('sb.v1.quota.ping', {}, { timeoutMs: 5_000 })).rejects.toBeInstanceOf(BusUnavailableError);
    expect(Date.now() - started).toBeLessThan(100);

    await server.restart();
    await eventually(() => expect(caller.isConnected() && responder.isConnected()).toBe(true), 10_000);
    const reply = await retry(() => caller.request('sb.v1.quota.ping', {}, { timeoutMs: 1_000 }));
    expect(reply.data).toBe('pong');
    await Promise.all([caller.close(), responder.close()]);
  });

  it('fails a request that is out when the connection drops, instead of waiting for its deadline', async () => {
    const responder = await NatsBus.connect({ servers: server.url, name: 'lost-responder' });
    const caller = await NatsBus.connect({ servers: server.url, name: 'lost-caller' });
    let received!: () => void;
    const handled = new Promise<void>((resolve) => (received = resolve));
    // Takes the request and never answers: only the dropped connection can end the caller's wait.
    await responder.subscribe('sb.v1.quota.hang', () => {
      received();
      return new Promise(() => {});
    }, { queue: 'quota' });
    const started = Date.now();
    const outcome = caller.request('sb.v1.quota.hang', {}, { timeoutMs: 30_000 }).catch((error: unknown) => error);
    await handled;
    await server.stop();
    const error = await outcome;
    expect(error).toBeInstanceOf(ConnectionLostError);
    expect(error).toMatchObject({ code: 'CONNECTION_LOST', subject: 'sb.v1.quota.hang' });
    expect(Date.now() - started).toBeLessThan(30_000 / 2);
    await server.restart();
    await Promise.all([caller.close(), responder.close()]);
  });
});

/** The two clients reconnect independently; the responder may need a moment longer. */
async function retry<T>(attempt: () => Promise<T>, attempts = 20): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (error) {
      if (i >= attempts) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
