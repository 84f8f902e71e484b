import { createDecipheriv, createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { get } from 'node:https';
import type { Agent } from 'node:https';
import { getMediaKeys, getUrlFromDirectPath } from '@whiskeysockets/baileys';
import type { MediaType } from '@whiskeysockets/baileys';
import type { DownloadableMedia } from './translate-inbound.js';

/** The largest media the network carries (documents, 100 MB) plus its padding and MAC. */
const MAX_DOWNLOAD_BYTES = 100 * 1024 * 1024 + 32;
const DOWNLOAD_TIMEOUT_MS = 60_000;

/**
 * Downloads and decrypts received media as Baileys' `downloadMediaMessage` does (same URL rule,
 * same key expansion), but over the socket's own HTTPS agent: Baileys downloads with the global
 * `fetch`, which cannot be told to trust only the emulator's media certificate without an undici
 * dependency. The MAC and the plaintext's SHA-256 are checked, so corrupt media is refused.
 */
export async function downloadMedia(media: DownloadableMedia, type: MediaType, agent: Agent | undefined): Promise<Uint8Array> {
  if (!media.mediaKey || (!media.directPath && !media.url)) throw new Error('media message without key or location');
  const host = media.url ? new URL(media.url).host : undefined;
  const url = media.directPath ? getUrlFromDirectPath(media.directPath, host) : (media.url ?? '');
  const blob = await fetchBytes(url, agent);
  const { iv, cipherKey, macKey } = await getMediaKeys(media.mediaKey, type);
  const ciphertext = blob.subarray(0, blob.length - 10);
  const mac = createHmac('sha256', macKey ?? Buffer.alloc(0)).update(iv).update(ciphertext).digest().subarray(0, 10);
  if (blob.length < 10 || !timingSafeEqual(mac, blob.subarray(blob.length - 10))) throw new Error('media MAC mismatch');
  const decipher = createDecipheriv('aes-256-cbc', cipherKey, iv);
  const plaintext = Buffer.concat([decipher.update(ciphertext), decipher.final()]);
  const expected = media.fileSha256 ? Buffer.from(media.fileSha256) : undefined;
  if (expected && !createHash('sha256').update(plaintext).digest().equals(expected)) throw new Error('media SHA-256 mismatch');
  return plaintext;
}

function fetchBytes(url: string, agent: Agent | undefined): Promise<Buffer> {
  if (!url.startsWith('https://')) return Promise.reject(new Error('media URLs are https only'));
  return new Promise((resolve, reject) => {
    const request = get(url, { ...(agent ? { agent } : {}), timeout: DOWNLOAD_TIMEOUT_MS, headers: { origin: 'https://web.whatsapp.com' } }, (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        return reject(new Error(`media download answered ${response.statusCode}`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_DOWNLOAD_BYTES) request.destroy(new Error('media larger than the network allows'));
        else chunks.push(chunk);
      });
      response.on('end', () => resolve(Buffer.concat(chunks)));
      response.on('error', reject);
    });
    request.on('timeout', () => request.destroy(new Error('media download timed out')));
    request.on('error', reject);
  });
}
