import { get } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MediaHost } from '../src/media-host.js';
import { makeSelfSignedCertificate } from '../src/tls-cert.js';

const tls = makeSelfSignedCertificate();
let host: MediaHost;

beforeAll(async () => {
  host = new MediaHost(tls, undefined);
  await host.start();
});
afterAll(() => host.stop());

/** Downloads `url` trusting the host's certificate: the bytes and how long the answer took. */
function download(url: string): Promise<{ status: number; bytes: Buffer; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    get(url, { ca: tls.certPem }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, bytes: Buffer.concat(chunks), ms: performance.now() - started }));
    }).on('error', reject);
  });
}

describe('the media host', () => {
  it('serves what was hosted, and answers after the download delay the control API set (a slow media host)', async () => {
    const { url } = host.host(Buffer.from('encrypted bytes'));
    const quick = await download(url);
    expect(quick).toMatchObject({ status: 200, bytes: Buffer.from('encrypted bytes') });

    host.downloadDelayMs = 400;
    const slow = await download(url);
    expect(slow).toMatchObject({ status: 200, bytes: Buffer.from('encrypted bytes') });
    expect(slow.ms).toBeGreaterThanOrEqual(390);
    host.downloadDelayMs = 0;
  });
});
