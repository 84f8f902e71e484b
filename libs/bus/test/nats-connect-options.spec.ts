import { describe, expect, it } from 'vitest';
import { natsConnectOptions, natsServiceConnectionOptions } from '../src/nats-bus.js';

describe('SWITCHBOARD_NATS_URL as the NATS client takes it', () => {
  it('takes the user and password out of the URL (nats.js ignores them there), percent-decoded', () => {
    expect(natsConnectOptions('nats://sessions:p%40ss%3Aword@nats:4222')).toEqual({ servers: ['nats://nats:4222'], user: 'sessions', pass: 'p@ss:word' });
  });

  it('keeps a list of servers without credentials as it is', () => {
    expect(natsConnectOptions('nats://127.0.0.1:4222, nats://127.0.0.1:4223')).toEqual({ servers: ['nats://127.0.0.1:4222', 'nats://127.0.0.1:4223'] });
    expect(natsConnectOptions('127.0.0.1:4222')).toEqual({ servers: ['127.0.0.1:4222'] });
  });

  it('refuses a list naming two users', () => {
    expect(() => natsConnectOptions('nats://a:x@n1:4222,nats://b:y@n2:4222')).toThrow('more than one NATS user');
  });

  it('makes every service connection the same way: credentials from the URL, reconnecting for good, no per-request stack traces', () => {
    expect(natsServiceConnectionOptions('nats://quota:secret@nats:4222', 'quota')).toEqual({
      servers: ['nats://nats:4222'],
      user: 'quota',
      pass: 'secret',
      name: 'quota',
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      waitOnFirstConnect: false,
      noAsyncTraces: true,
    });
  });
});
