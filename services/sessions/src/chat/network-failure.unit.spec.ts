import { describe, expect, it } from 'vitest';
import { classifyNetworkFailure, versionRejected } from './network-failure.js';

/** What Baileys emits on a WebSocket error: a Boom whose `data` is the ws/node error. */
const wsError = (message: string, fields: Record<string, unknown> = {}) => ({
  message: `WebSocket Error (${message})`,
  data: Object.assign(new Error(message), fields),
});

describe('classifyNetworkFailure', () => {
  it('names a name that does not resolve as dns, with its host', () => {
    expect(classifyNetworkFailure(wsError('getaddrinfo ENOTFOUND web.whatsapp.com', { code: 'ENOTFOUND', hostname: 'web.whatsapp.com' }))).toEqual({
      cause: 'dns',
      host: 'web.whatsapp.com',
      detail: 'web.whatsapp.com could not be resolved (ENOTFOUND)',
    });
    expect(classifyNetworkFailure(wsError('getaddrinfo EAI_AGAIN x', { code: 'EAI_AGAIN', hostname: 'x' }))?.cause).toBe('dns');
  });

  it('names refused, reset and unreachable connections as tcp', () => {
    expect(classifyNetworkFailure(wsError('connect ECONNREFUSED 127.0.0.1:9', { code: 'ECONNREFUSED', address: '127.0.0.1' }))).toEqual({
      cause: 'tcp',
      host: '127.0.0.1',
      detail: 'no TCP connection to 127.0.0.1 (ECONNREFUSED)',
    });
    for (const code of ['ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT']) expect(classifyNetworkFailure(wsError(code, { code }))?.cause, code).toBe('tcp');
  });

  it('names handshake and certificate failures as tls', () => {
    for (const code of ['ERR_SSL_WRONG_VERSION_NUMBER', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'CERT_HAS_EXPIRED', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'ERR_TLS_CERT_ALTNAME_INVALID']) {
      expect(classifyNetworkFailure(wsError(`tls: ${code}`, { code }))?.cause, code).toBe('tls');
    }
    expect(classifyNetworkFailure(wsError('Client network socket disconnected before secure TLS connection was established', { code: 'ECONNRESET' }))?.cause).toBe('tcp');
  });

  it('names an HTTP refusal at the upgrade and a connection-failure stanza as rejected', () => {
    expect(classifyNetworkFailure(wsError('Unexpected server response: 403'))).toEqual({ cause: 'rejected', detail: 'the chat network refused the connection (HTTP 403)' });
    expect(classifyNetworkFailure({ message: 'Connection Failure', output: { statusCode: 405 }, data: { reason: '405' } })).toEqual({
      cause: 'rejected',
      detail: 'the chat network refused the login (connection failure 405: client version outdated)',
    });
    expect(classifyNetworkFailure({ message: 'Connection Failure', output: { statusCode: 503 } })?.detail).toBe('the chat network refused the login (connection failure 503)');
    expect(versionRejected([2, 3000, 1]).detail).toMatch(/^the chat network refuses WhatsApp Web version 2\.3000\.1 as outdated \(connection failure 405\)/);
  });

  it('names a connection whose keepalive pings went unanswered silent, with how long it was quiet', () => {
    const keepaliveGaveUp = { message: 'Connection was lost', output: { statusCode: 408 } };
    expect(classifyNetworkFailure(keepaliveGaveUp, 20_000)).toEqual({
      cause: 'silent',
      detail: 'the chat network stopped answering an open connection: nothing received for over 25 s, keepalive pings unanswered',
    });
    // The same 408 from a pairing whose codes ran out is not a silent connection.
    expect(classifyNetworkFailure({ message: 'QR refs attempts ended', output: { statusCode: 408 } })).toBeUndefined();
  });

  it('leaves what is not a network failure alone: a drop, a logout, nothing at all', () => {
    expect(classifyNetworkFailure({ message: 'Connection Closed', output: { statusCode: 428 } })).toBeUndefined();
    expect(classifyNetworkFailure({ message: 'Stream Errored (conflict)', output: { statusCode: 440 } })).toBeUndefined();
    expect(classifyNetworkFailure(undefined)).toBeUndefined();
  });
});
