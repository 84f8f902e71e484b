import { describe, expect, it } from 'vitest';
import { createBus } from '../src/create-bus.js';
import { BusUnavailableError } from '../src/errors.js';
import { InProcessBus } from '../src/in-process-bus.js';
import { closedLoopbackPort } from '../src/testing/index.js';

describe('createBus', () => {
  it('uses the shared embedded bus when SWITCHBOARD_NATS_URL is unset', async () => {
    const embedded = new InProcessBus();
    await expect(createBus({ name: 'quota', env: {}, embedded })).resolves.toBe(embedded);
  });

  it('connects to NATS when SWITCHBOARD_NATS_URL is set', async () => {
    const bus = await createBus({ name: 'quota', env: { SWITCHBOARD_NATS_URL: 'nats://127.0.0.1:4222' } });
    expect(bus.health()).toMatchObject({ transport: 'nats', connected: true });
    await bus.close();
  });

  it('fails fast when every listed NATS server is unreachable', async () => {
    const [first, second] = [await closedLoopbackPort(), await closedLoopbackPort()];
    const started = Date.now();
    const env = { SWITCHBOARD_NATS_URL: `nats://127.0.0.1:${first}, nats://127.0.0.1:${second}` };
    await expect(createBus({ name: 'quota', env })).rejects.toBeInstanceOf(BusUnavailableError);
    expect(Date.now() - started).toBeLessThan(2_000);
  });
});
