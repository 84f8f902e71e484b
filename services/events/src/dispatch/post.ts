import http from 'node:http';
import https from 'node:https';
import { checkedAddress, pinnedLookup } from '@switchboard/net-policy';
import type { Resolver } from '@switchboard/net-policy';

/** What one attempt ended with: an HTTP status, or an error without one (timeout, refused, forbidden). */
export type PostOutcome = { status: number } | { error: string };

export interface PostOptions {
  allowLoopback: boolean;
  timeoutMs: number;
  resolver?: Resolver | undefined;
  agent?: http.Agent | undefined;
}

/**
 * POSTs a webhook body. The host is resolved and every address checked BEFORE connecting (the
 * same SSRF policy as media URLs), and the socket is pinned to the checked address. The response
 * body is drained and ignored; only the status counts.
 */
export async function postWebhook(url: string, headers: Record<string, string>, body: string, options: PostOptions): Promise<PostOutcome> {
  const target = new URL(url);
  const pinned = await checkedAddress(target, options.allowLoopback, options.resolver);
  if (pinned === 'forbidden') return { error: 'address_forbidden' };
  if (pinned === 'unresolvable') return { error: 'dns_unresolvable' };
  const client = target.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    const req = client.request(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      lookup: pinnedLookup(pinned),
      agent: options.agent,
      timeout: options.timeoutMs,
    });
    const timer = setTimeout(() => req.destroy(new Error('timeout')), options.timeoutMs);
    req.once('response', (response) => {
      response.resume();
      response.once('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0 });
      });
      response.once('error', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0 });
      });
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', (error) => {
      clearTimeout(timer);
      const code = (error as { code?: unknown }).code;
      resolve({ error: error.message === 'timeout' ? `timeout after ${options.timeoutMs} ms` : typeof code === 'string' ? code : 'connection_failed' });
    });
    req.end(body);
  });
}
