import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { startEmbedded } from '../support/harness.js';
import type { SwitchboardUnderTest } from '../support/harness.js';

/** Debian's chromium (`apt-get install chromium`); nothing is downloaded by the tests. */
const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const skipReason = CHROMIUM ? undefined : 'skipped: no chromium at /usr/bin/chromium (Debian package "chromium")';
if (skipReason) console.warn(`docs page in a browser ${skipReason}`);

describe.skipIf(CHROMIUM === undefined)('the /docs page in a real headless browser (embedded mode)', () => {
  let sut: SwitchboardUnderTest;
  let browser: Browser;

  beforeAll(async () => {
    sut = await startEmbedded();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // As the machine's probe runs it: no sandbox as root, no background traffic off this host.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await sut?.close();
  });

  it('renders the intro and the operations at phone width, loads nothing from elsewhere, and points its request client at this server', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    const offHost: string[] = [];
    const refused: string[] = [];
    page.on('request', (request) => {
      if (!request.url().startsWith(sut.url) && !request.url().startsWith('data:')) offHost.push(request.url());
    });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) refused.push(message.text());
    });
    // Nothing may leave this host: any other request is aborted before it is sent.
    await page.route((url) => !url.href.startsWith(sut.url) && url.protocol !== 'data:', (route) => route.abort());
    const response = await page.goto(`${sut.url}/docs`);
    expect(response?.status()).toBe(200);
    // The intro (auth, envelope, idempotency, limits, events) and the operations, rendered.
    await page.getByText('Idempotency-Key').first().waitFor({ timeout: 30_000 });
    const text = await page.locator('body').innerText();
    for (const words of ['Authorization: Bearer', 'VALIDATION_ERROR', 'Send WhatsApp messages through your own account']) expect(text).toContain(words);
    // The operations (rendered as the reader scrolls; the first group is there at once), and the
    // request client set to call this very server with a bearer key.
    await expect.poll(async () => page.locator('body').innerText(), { timeout: 15_000 }).toContain('/v1/sessions/{sessionId}/qr');
    const rendered = await page.locator('body').innerText();
    expect(rendered).toContain(sut.url);
    expect(rendered).toContain('Bearer');
    // Readable at phone width: nothing wider than the screen.
    // (A string: this file is compiled for Node, without the DOM's types.)
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
    expect(overflow).toBeLessThanOrEqual(1);
    // "Try it": the page may call this server under its own Content-Security-Policy.
    const status = await page.evaluate(async (key) => (await fetch('/v1/sessions', { headers: { authorization: `Bearer ${key}` } })).status, sut.apiKey);
    expect(status).toBe(200);
    expect(offHost).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });
});
