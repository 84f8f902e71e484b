import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { closedLoopbackPort } from '../src/testing/index.js';

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
});
