import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { closedLoopbackPort, ephemeralPortRange } from '../src/testing/index.js';

describe('closedLoopbackPort', () => {
  it('never hands out the same port twice in a process (the kernel does give a released port again)', async () => {
    const ports: number[] = [];
    for (let i = 0; i < 500; i++) ports.push(await closedLoopbackPort());
    expect(new Set(ports).size).toBe(ports.length);
  });

  it('hands out a port that can be listened on', async () => {
    const port = await closedLoopbackPort();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('hands out ports below the ephemeral range, which another process\'s listen(0) or outgoing connection could be given meanwhile', async () => {
    const [firstEphemeral] = ephemeralPortRange();
    // On a kernel configured with almost no room below its range the kernel's own pick is used.
    if (firstEphemeral - 20_000 < 2_000) return expect(firstEphemeral).toBeLessThan(22_000);
    const ports = await Promise.all(Array.from({ length: 50 }, () => closedLoopbackPort()));
    expect(ports.every((port) => port >= 20_000 && port < firstEphemeral)).toBe(true);
    // A port released by listen(0) (what other test processes get) is never one of them.
    const kernel = createServer();
    await new Promise<void>((resolve) => kernel.listen(0, '127.0.0.1', resolve));
    const released = (kernel.address() as { port: number }).port;
    await new Promise<void>((resolve) => kernel.close(() => resolve()));
    expect(released).toBeGreaterThanOrEqual(firstEphemeral);
    for (let i = 0; i < 200; i++) expect(await closedLoopbackPort()).not.toBe(released);
  });

  it('skips ports something already listens on', async () => {
    const [firstEphemeral] = ephemeralPortRange();
    if (firstEphemeral - 20_000 < 2_000) return;
    // 300 listeners in a row inside the range drawn from: without the check, 300 draws would land
    // on one of them all but about once in a thousand runs.
    const start = 20_000 + Math.floor(Math.random() * (firstEphemeral - 20_000 - 300));
    const squatters = [];
    for (let port = start; port < start + 300; port++) {
      const server = createServer();
      const bound = await new Promise<boolean>((resolve) => server.once('error', () => resolve(false)).listen(port, '127.0.0.1', () => resolve(true)));
      if (bound) squatters.push({ port, server });
    }
    try {
      const taken = new Set(squatters.map((s) => s.port));
      const ports = [];
      for (let i = 0; i < 300; i++) ports.push(await closedLoopbackPort());
      expect(ports.filter((port) => taken.has(port))).toEqual([]);
    } finally {
      await Promise.all(squatters.map(({ server }) => new Promise<void>((resolve) => server.close(() => resolve()))));
    }
  });
});
