import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator } from '../src/index.js';
import type { RunningEmulator } from '../src/index.js';

describe('the control API', () => {
  let emulator: RunningEmulator;
  const call = (method: string, path: string, body?: string) =>
    fetch(`${emulator.controlUrl}${path}`, { method, ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/json' } }) });

  beforeAll(async () => {
    emulator = await startEmulator();
  });
  afterAll(() => emulator.stop());

  it('is healthy when ready', async () => {
    const response = await call('GET', '/health');
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: 'ok', devices: 0 });
  });

  it.each([
    ['POST', '/scan', '{}'],
    ['POST', '/scan', '{"qrCode":"x","phone":"+1555"}'],
    ['POST', '/scan', 'not json'],
    ['POST', '/pair', '{"phone":"15551234567"}'],
    ['POST', '/pair', '{"phone":"15551234567","code":"ABCD-EFG"}'],
    ['PUT', '/contacts/abc', '{}'],
    ['PUT', '/contacts/15551234567', '{"onNetwork":"yes"}'],
    ['PUT', '/contacts/15551234567', '{"deliverAfterMs":-1}'],
    ['PUT', '/contacts/15551234567', '{"readAfterMs":"soon"}'],
    ['PUT', '/contacts/15551234567', '[]'],
    ['POST', '/contacts/15551234567/messages', '{"to":"15550001111"}'],
    ['POST', '/contacts/15551234567/messages', '{"text":"hi"}'],
    ['POST', '/network/media-delay', '{"downloadMs":-5}'],
    ['POST', '/network/media-delay', '{"downloadMs":"slow"}'],
  ])('%s %s %s answers 400', async (method, path, body) => {
    const response = await call(method, path, body);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_request' });
  });

  it('refuses web pages and names: a request with Origin, to a hostname, or with a non-JSON body', async () => {
    const fromPage = await fetch(`${emulator.controlUrl}/devices/15551234567/logout`, { method: 'POST', headers: { origin: 'http://evil.example' } });
    expect(fromPage.status).toBe(403);
    // fetch() may not set Host: a plain HTTP request plays the rebound browser.
    const byName = await new Promise<number>((resolve, reject) => {
      const { port } = new URL(emulator.controlUrl);
      request({ host: '127.0.0.1', port, path: '/health', headers: { host: 'rebound.example' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject).end();
    });
    expect(byName).toBe(403);
    const asText = await fetch(`${emulator.controlUrl}/contacts/15551234567`, { method: 'PUT', body: '{"onNetwork":false}', headers: { 'content-type': 'text/plain' } });
    expect(asText.status).toBe(415);
  });

  it('sets the media host\'s download delay (POST /network/media-delay), 0 for none', async () => {
    expect(await (await call('POST', '/network/media-delay', '{"downloadMs":250}')).json()).toEqual({ downloadMs: 250 });
    expect(await (await call('POST', '/network/media-delay', '{"downloadMs":0}')).json()).toEqual({ downloadMs: 0 });
  });

  it('stores contact behaviour, with defaults for what is left out', async () => {
    const response = await call('PUT', '/contacts/15551234567', '{"onNetwork":false,"readAfterMs":null}');
    expect(await response.json()).toEqual({ onNetwork: false, deliverAfterMs: 100, readAfterMs: null, failDecryptNext: 0, failDecryptRate: 0, addressing: null });
    expect(await (await call('GET', '/contacts/15551234567/messages')).json()).toEqual([]);
    const failing = await call('PUT', '/contacts/15551234567', '{"failDecryptNext":2,"failDecryptRate":0.25}');
    expect(await failing.json()).toMatchObject({ failDecryptNext: 2, failDecryptRate: 0.25 });
    expect((await call('PUT', '/contacts/15551234567', '{"failDecryptNext":-1}')).status).toBe(400);
    expect((await call('PUT', '/contacts/15551234567', '{"failDecryptRate":1.5}')).status).toBe(400);
  });

  it('answers 404 for unknown routes and devices, 405 for wrong methods', async () => {
    expect((await call('GET', '/nope')).status).toBe(404);
    expect((await call('POST', '/contacts/15551234567/messages', '{"to":"15550001111","text":"hi"}')).status).toBe(404);
    expect((await call('GET', '/scan')).status).toBe(405);
  });

  it('serves what to trust beside the WebSocket, on the same port', async () => {
    const trustUrl = emulator.wsUrl.replace('ws://', 'http://').replace('/ws/chat', '/trust');
    const trust = (await (await fetch(trustUrl)).json()) as { rootPublicKey: string; mediaCertificatePem: string };
    expect(trust.rootPublicKey).toBe(emulator.rootPublicKey.toString('hex'));
    expect(trust.mediaCertificatePem).toBe(emulator.mediaCertificatePem);
  });

  it('memory-only emulators in one process share what clients trust (WA_CERT_DETAILS is process-wide)', async () => {
    const other = await startEmulator();
    try {
      expect(other.rootPublicKey.equals(emulator.rootPublicKey)).toBe(true);
      expect(other.mediaCertificatePem).toBe(emulator.mediaCertificatePem);
    } finally {
      await other.stop();
    }
  });

  it('refuses to listen anywhere but loopback', async () => {
    await expect(startEmulator({ host: '0.0.0.0' })).rejects.toThrow(/127\.0\.0\.1/);
  });

  it('refuses a pairing schedule that is not positive whole milliseconds', async () => {
    await expect(startEmulator({ pairing: { refCount: 0 } })).rejects.toThrow(/refCount/);
  });
});
