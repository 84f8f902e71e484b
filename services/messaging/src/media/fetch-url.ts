import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage } from 'node:http';
import { ApiError, MEDIA_MAX_BYTES, mediaTooLarge } from '@switchboard/contracts';
import type { MediaType } from '@switchboard/contracts';
import { checkedAddress, pinnedLookup } from '@switchboard/net-policy';
import type { ResolvedAddress, Resolver } from '@switchboard/net-policy';

export type { ResolvedAddress, Resolver } from '@switchboard/net-policy';

export interface FetchOptions {
  /** Whose size cap (MEDIA_MAX_BYTES) the body must stay within. */
  mediaType: MediaType;
  timeoutMs: number;
  allowLoopback: boolean;
  resolver?: Resolver;
  maxRedirects?: number;
}

export interface FetchedMedia {
  bytes: Uint8Array;
  /** The server's Content-Type without parameters, if any: a hint for documents only. */
  contentType: string | null;
}

const forbidden = () => new ApiError('MEDIA_URL_FORBIDDEN');
const unreachable = (why: string) => new ApiError('MEDIA_UNREACHABLE', `The media could not be fetched: ${why}.`);

/**
 * Fetches an http(s) media URL for a send. The host is resolved once, every address checked
 * against the SSRF policy BEFORE any connection, and the socket is pinned to the checked address
 * (a custom `lookup`), so a second DNS answer cannot redirect it (DNS rebinding). Redirects are
 * followed by the same rules; the size cap is enforced while the body streams in.
 */
export async function fetchMediaUrl(url: string, options: FetchOptions): Promise<FetchedMedia> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  let target = new URL(url);
  for (let hop = 0; hop <= (options.maxRedirects ?? 3); hop++) {
    const pinned = await pinnedAddress(target, options);
    const response = await request(target, pinned, signal, options.timeoutMs);
    const status = response.statusCode ?? 0;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && location !== undefined) {
      response.destroy();
      target = nextHop(target, location);
      continue;
    }
    if (status < 200 || status >= 300) {
      response.destroy();
      throw unreachable(`the server answered HTTP ${status}`);
    }
    return { bytes: await readCapped(response, options.mediaType, signal, options.timeoutMs), contentType: contentTypeOf(response) };
  }
  throw unreachable('too many redirects');
}

function nextHop(from: URL, location: string): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw unreachable('the server redirected to an invalid URL');
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') throw forbidden();
  return next;
}

/** The address to pin the fetch to, or the refusal as the media error a client sees. */
async function pinnedAddress(url: URL, options: FetchOptions): Promise<ResolvedAddress> {
  const checked = await checkedAddress(url, options.allowLoopback, options.resolver);
  if (checked === 'forbidden') throw forbidden();
  if (checked === 'unresolvable') throw unreachable('its host name does not resolve');
  return checked;
}

function request(url: URL, pinned: ResolvedAddress, signal: AbortSignal, timeoutMs: number): Promise<IncomingMessage> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(url, {
      method: 'GET',
      signal,
      lookup: pinnedLookup(pinned),
      agent: false,
      headers: { accept: '*/*', 'user-agent': 'Switchboard media fetcher' },
    });
    req.once('response', resolve);
    req.once('error', (error) => reject(signal.aborted ? unreachable(`no answer within ${timeoutMs} ms`) : unreachable(describe(error))));
    req.end();
  });
}

function readCapped(response: IncomingMessage, mediaType: MediaType, signal: AbortSignal, timeoutMs: number): Promise<Uint8Array> {
  const maxBytes = MEDIA_MAX_BYTES[mediaType];
  const declared = Number(response.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    response.destroy();
    return Promise.reject(mediaTooLarge(mediaType, declared));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    response.on('data', (chunk: Buffer) => {
      size += chunk.length;
      // Stop reading at once: a lying or absent Content-Length must not make us buffer more.
      if (size > maxBytes) {
        response.destroy();
        // The whole size is never known: reading stops here.
        reject(mediaTooLarge(mediaType));
        return;
      }
      chunks.push(chunk);
    });
    response.once('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    response.once('error', (error) => reject(signal.aborted ? unreachable(`no answer within ${timeoutMs} ms`) : unreachable(describe(error))));
    response.once('close', () => {
      if (!response.complete) reject(signal.aborted ? unreachable(`no answer within ${timeoutMs} ms`) : unreachable('the connection closed early'));
    });
  });
}

function contentTypeOf(response: IncomingMessage): string | null {
  const value = response.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  return value ? value : null;
}

/** A client-safe reason: the error code only, never the address or host it failed on. */
function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `connection failed (${code})` : 'connection failed';
}
