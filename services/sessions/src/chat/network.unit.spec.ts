import { describe, expect, it } from 'vitest';
import { isLoopbackHost } from '@switchboard/service-kit';
import { NonLoopbackEmulatorError, resolveNetwork } from './network.js';

describe('emulator network selection', () => {
  it.each(['127.0.0.1', '127.8.9.10', '::1', '[::1]'])('treats %s as loopback', (host) => {
    expect(isLoopbackHost(host)).toBe(true);
  });

  it.each(['localhost', 'LOCALHOST', '10.0.0.1', '128.0.0.1', 'example.com', '127.0.0.1.nip.io', 'localhost.example.com', '::2', '0.0.0.0'])(
    'refuses %s',
    (host) => {
      expect(isLoopbackHost(host)).toBe(false);
    },
  );

  it('refuses a non-loopback emulator URL before any traffic', async () => {
    await expect(resolveNetwork({ kind: 'emulator', url: 'ws://192.0.2.1:9/ws/chat' })).rejects.toThrow(NonLoopbackEmulatorError);
  });

  it('uses Baileys defaults for the real network', async () => {
    expect(await resolveNetwork({ kind: 'whatsapp' })).toEqual({ kind: 'whatsapp' });
  });
});
