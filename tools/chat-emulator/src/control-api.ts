import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { EmulatorError } from './errors.js';
import { isPhone } from './model.js';
import type { ContactSettings } from './model.js';

/** The operations the control API exposes (see /work/shared/spec/operations.md). */
export interface ControlOperations {
  scan(qrCode: string, phone: string): Promise<unknown>;
  setContact(phone: string, settings: ContactSettings): ContactSettings;
  received(phone: string): unknown[];
  inbound(from: string, to: string, text: string): Promise<string>;
  drop(phone: string): void;
  logout(phone: string): void;
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

const delay = (body: Body, key: string, fallback: number | null): number | null => {
  const value = body[key];
  if (value === undefined) return fallback;
  if (value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw bad(`${key} must be a non-negative integer or null`);
  return value;
};

const contactSettings = (body: Body): ContactSettings => {
  if (body.onNetwork !== undefined && typeof body.onNetwork !== 'boolean') throw bad('onNetwork must be a boolean');
  return { onNetwork: body.onNetwork ?? true, deliverAfterMs: delay(body, 'deliverAfterMs', 100), readAfterMs: delay(body, 'readAfterMs', 1000) };
};

const text = (body: Body, key: string): string => {
  const value = body[key];
  if (typeof value !== 'string' || value.length === 0) throw bad(`${key} must be a non-empty string`);
  return value;
};

const ROUTES: Route[] = [
  { method: 'GET', pattern: /^\/health$/, run: async (ops, _m, _b, query) => [200, ops.health(query.get('gc') === '1')] },
  { method: 'POST', pattern: /^\/scan$/, run: async (ops, _m, b) => [200, await ops.scan(text(b, 'qrCode'), phoneParam(b.phone as string))] },
  { method: 'PUT', pattern: /^\/contacts\/([^/]+)$/, run: async (ops, m, b) => [200, ops.setContact(phoneParam(m[1]), contactSettings(b))] },
  { method: 'GET', pattern: /^\/contacts\/([^/]+)\/messages$/, run: async (ops, m) => [200, ops.received(phoneParam(m[1]))] },
  {
    method: 'POST',
    pattern: /^\/contacts\/([^/]+)\/messages$/,
    run: async (ops, m, b) => [202, { id: await ops.inbound(phoneParam(m[1]), phoneParam(b.to as string), text(b, 'text')) }],
  },
  { method: 'GET', pattern: /^\/devices\/([^/]+)$/, run: async (ops, m) => [200, ops.device(phoneParam(m[1]))] },
  { method: 'POST', pattern: /^\/devices\/([^/]+)\/drop$/, run: async (ops, m) => (ops.drop(phoneParam(m[1])), [200, { dropped: true }]) },
  { method: 'POST', pattern: /^\/devices\/([^/]+)\/logout$/, run: async (ops, m) => (ops.logout(phoneParam(m[1])), [200, { loggedOut: true }]) },
];

const readBody = async (req: IncomingMessage): Promise<Body> => {
  let raw = '';
  for await (const chunk of req) {
    raw += String(chunk);
    if (raw.length > MAX_BODY) throw new EmulatorError(413, 'body_too_large', 'request body too large');
  }
  if (raw.trim() === '') return {};
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

const handle = async (ops: ControlOperations, req: IncomingMessage, res: ServerResponse): Promise<void> => {
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
