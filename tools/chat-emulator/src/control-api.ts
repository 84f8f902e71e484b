import { isIP } from 'node:net';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { EmulatorError } from './errors.js';
import { parseInboundSpec } from './inbound-spec.js';
import type { InboundSpec } from './inbound-spec.js';
import type { SentInbound } from './inbound.js';
import { isPhone, phoneForLid } from './model.js';
import type { ContactSettings } from './model.js';
import { asWaVersion } from './versions.js';
import type { WaVersion } from './versions.js';

/** The operations the control API exposes (see /work/shared/spec/operations.md). */
export interface ControlOperations {
  scan(qrCode: string, phone: string): Promise<unknown>;
  /** The phone of `phone` enters the code its linking device shows (instead of scanning a QR). */
  pair(phone: string, code: string): Promise<unknown>;
  setContact(phone: string, settings: ContactSettings): ContactSettings;
  received(phone: string): unknown[];
  /** The chat states ("typing…") linked devices showed the contact, oldest first. */
  chatStates(phone: string): unknown[];
  inbound(from: string, spec: InboundSpec): Promise<SentInbound>;
  drop(phone: string): void;
  blackhole(phone: string): void;
  endBlackhole(phone: string): void;
  logout(phone: string): void;
  /** Refuses clients older than `version` from their next connection on; null accepts any. */
  setMinVersion(version: WaVersion | null): void;
  /** The media host answers every download after `ms` from now on (0: at once). */
  setMediaDownloadDelay(ms: number): void;
  device(phone: string): unknown;
  /** `gc`: collect garbage first when the process runs with --expose-gc (for heap measurements). */
  health(gc: boolean): unknown;
}

type Body = Record<string, unknown>;
type Route = {
  method: string;
  pattern: RegExp;
  run: (ops: ControlOperations, m: string[], body: Body, query: URLSearchParams) => Promise<[number, unknown]>;
};

const MAX_BODY = 4 * 1024 * 1024;

const bad = (message: string): EmulatorError => new EmulatorError(400, 'invalid_request', message);

const phoneParam = (value: string | undefined): string => {
  if (!isPhone(value)) throw bad('phone must be digits only, international format without +');
  return value;
};

/** A contact named by its phone number or by its LID jid (`<lid>@lid`), as the network now names it. */
const contactParam = (value: string | undefined): string => {
  const lid = value?.endsWith('@lid') ? phoneForLid(value.slice(0, -'@lid'.length)) : undefined;
  return phoneParam(lid ?? value);
};

const delay = (body: Body, key: string, fallback: number | null): number | null => {
  const value = body[key];
  if (value === undefined) return fallback;
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw bad(`${key} must be a non-negative integer or null`);
  return value;
};

const count = (body: Body, key: string): number => {
  const value = body[key] ?? 0;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw bad(`${key} must be a non-negative integer`);
  return value;
};

const rate = (body: Body, key: string): number => {
  const value = body[key] ?? 0;
  if (typeof value !== 'number' || !(value >= 0 && value <= 1)) throw bad(`${key} must be a number from 0 to 1`);
  return value;
};

const addressingOf = (body: Body): ContactSettings['addressing'] => {
  const value = body.addressing ?? null;
  if (value !== null && value !== 'lid' && value !== 'pn') throw bad('addressing must be "lid", "pn" or null');
  return value;
};

const contactSettings = (body: Body): ContactSettings => {
  if (body.onNetwork !== undefined && typeof body.onNetwork !== 'boolean') throw bad('onNetwork must be a boolean');
  return {
    onNetwork: body.onNetwork ?? true,
    deliverAfterMs: delay(body, 'deliverAfterMs', 100),
    readAfterMs: delay(body, 'readAfterMs', 1000),
    failDecryptNext: count(body, 'failDecryptNext'),
    failDecryptRate: rate(body, 'failDecryptRate'),
    addressing: addressingOf(body),
  };
};

const text = (body: Body, key: string): string => {
  const value = body[key];
  if (typeof value !== 'string' || value.length === 0) throw bad(`${key} must be a non-empty string`);
  return value;
};

const minVersion = (body: Body): WaVersion | null => {
  const version = body.version === null ? null : asWaVersion(body.version);
  if (version === undefined) throw bad('version must be [primary, secondary, tertiary] (non-negative integers), or null to accept any');
  return version;
};

const ROUTES: Route[] = [
  { method: 'GET', pattern: /^\/health$/, run: async (ops, _m, _b, query) => [200, ops.health(query.get('gc') === '1')] },
  { method: 'POST', pattern: /^\/scan$/, run: async (ops, _m, b) => [200, await ops.scan(text(b, 'qrCode'), phoneParam(b.phone as string))] },
  { method: 'POST', pattern: /^\/pair$/, run: async (ops, _m, b) => [200, await ops.pair(phoneParam(b.phone as string), text(b, 'code'))] },
  { method: 'PUT', pattern: /^\/contacts\/([^/]+)$/, run: async (ops, m, b) => [200, ops.setContact(phoneParam(m[1]), contactSettings(b))] },
  { method: 'GET', pattern: /^\/contacts\/([^/]+)\/messages$/, run: async (ops, m) => [200, ops.received(phoneParam(m[1]))] },
  { method: 'GET', pattern: /^\/contacts\/([^/]+)\/chatstates$/, run: async (ops, m) => [200, ops.chatStates(phoneParam(m[1]))] },
  {
    method: 'POST',
    pattern: /^\/contacts\/([^/]+)\/messages$/,
    run: async (ops, m, b) => [202, await ops.inbound(contactParam(m[1]), parseInboundSpec(b, isPhone))],
  },
  { method: 'GET', pattern: /^\/devices\/([^/]+)$/, run: async (ops, m) => [200, ops.device(phoneParam(m[1]))] },
  { method: 'POST', pattern: /^\/devices\/([^/]+)\/drop$/, run: async (ops, m) => (ops.drop(phoneParam(m[1])), [200, { dropped: true }]) },
  { method: 'POST', pattern: /^\/devices\/([^/]+)\/logout$/, run: async (ops, m) => (ops.logout(phoneParam(m[1])), [200, { loggedOut: true }]) },
  { method: 'POST', pattern: /^\/devices\/([^/]+)\/blackhole$/, run: async (ops, m) => (ops.blackhole(phoneParam(m[1])), [200, { blackholed: true }]) },
  { method: 'DELETE', pattern: /^\/devices\/([^/]+)\/blackhole$/, run: async (ops, m) => (ops.endBlackhole(phoneParam(m[1])), [200, { blackholed: false }]) },
  {
    method: 'POST',
    pattern: /^\/network\/min-version$/,
    run: async (ops, _m, b) => {
      const version = minVersion(b);
      ops.setMinVersion(version);
      return [200, { minVersion: version }];
    },
  },
  {
    method: 'POST',
    pattern: /^\/network\/media-delay$/,
    run: async (ops, _m, b) => {
      const downloadMs = count(b, 'downloadMs');
      ops.setMediaDownloadDelay(downloadMs);
      return [200, { downloadMs }];
    },
  },
];

const readBody = async (req: IncomingMessage): Promise<Body> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY) throw new EmulatorError(413, 'body_too_large', 'request body too large');
    chunks.push(chunk);
  }
  // Decoded once, whole: a multi-byte character may be split across chunks.
  const raw = Buffer.concat(chunks).toString('utf8');
  if (raw.trim() === '') return {};
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    throw new EmulatorError(415, 'unsupported_media_type', 'a request body must be application/json');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw bad('body must be JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw bad('body must be a JSON object');
  return parsed as Body;
};

const reply = (res: ServerResponse, status: number, payload: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
};

/**
 * Only local programs drive the network: a request from a web page (it carries `Origin`) or one
 * addressed to a name (DNS rebinding points a name at 127.0.0.1) is refused.
 */
const fromLocalProgram = (req: IncomingMessage): boolean => {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  return req.headers.origin === undefined && isLoopbackLiteral(host);
};
const isLoopbackLiteral = (host: string): boolean => {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  return isIP(bare) === 4 ? bare.startsWith('127.') : bare === '::1';
};

const handle = async (ops: ControlOperations, req: IncomingMessage, res: ServerResponse): Promise<void> => {
  if (!fromLocalProgram(req)) return reply(res, 403, { error: 'forbidden', message: 'the control API answers local programs on a loopback address only' });
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const path = url.pathname;
  const matches = ROUTES.filter((r) => r.pattern.test(path));
  const route = matches.find((r) => r.method === req.method);
  if (!route) {
    const [status, code] = matches.length > 0 ? [405, 'method_not_allowed'] : [404, 'not_found'];
    return reply(res, status, { error: code, message: `${req.method} ${path}` });
  }
  try {
    const [status, payload] = await route.run(ops, route.pattern.exec(path) ?? [], await readBody(req), url.searchParams);
    reply(res, status, payload);
  } catch (error) {
    if (error instanceof EmulatorError) return reply(res, error.status, { error: error.code, message: error.message });
    reply(res, 500, { error: 'internal', message: error instanceof Error ? error.message : String(error) });
  }
};

/**
 * Keep-alive sockets stay open longer than clients' pools (undici keeps them 4 s): a server closing
 * an idle socket just as a busy client reuses it makes that request fail with "other side closed".
 */
const KEEP_ALIVE_MS = 65_000;

export const createControlServer = (ops: ControlOperations): Server => {
  const server = createServer((req, res) => void handle(ops, req, res));
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  server.headersTimeout = KEEP_ALIVE_MS + 1_000;
  return server;
};
