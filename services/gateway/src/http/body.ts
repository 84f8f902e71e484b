import type { FastifyInstance } from 'fastify';
import { ApiError, payloadTooLarge } from '@switchboard/contracts';

/**
 * Largest request body: 24 MiB. Media may be sent inline as base64 (4/3 of the bytes): this fits
 * the video and audio cap of 16 MiB (about 21.4 MiB of base64) with room for the other fields; a
 * document above about 17 MiB has to be sent as a URL. Larger bodies answer 413 before they are read
 * when Content-Length says so, or as soon as the limit is crossed (fastify's error, see errors.ts).
 */
export const BODY_LIMIT_BYTES = 24 * 1024 * 1024;

/**
 * JSON is the only body type (anything else is 415 UNSUPPORTED_MEDIA_TYPE). An empty body is
 * "no body" (an optional one, like POST /v1/sessions, then counts as `{}`); unparseable JSON is
 * 400 INVALID_JSON. `__proto__` keys are refused, as fastify's own parser does, so no parsed
 * object can reach a prototype.
 */
export function installJsonBodies(app: FastifyInstance): void {
  // Fastify refuses a declared oversize body too, but without the figures: the client gets both.
  // A callback hook: it runs on every request, bodiless GETs included, and never waits.
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const declared = Number(request.headers['content-length']);
    if (declared > BODY_LIMIT_BYTES) done(payloadTooLarge(BODY_LIMIT_BYTES, declared));
    else done(null, payload);
  });
  app.removeAllContentTypeParsers();
  for (const type of ['application/json', /^application\/[\w.+-]+\+json$/]) {
    app.addContentTypeParser(type, { parseAs: 'string' }, (_request, body, done) => {
      const parsed = parseJson(typeof body === 'string' ? body : body.toString('utf8'));
      if (parsed instanceof ApiError) done(parsed, undefined);
      else done(null, parsed);
    });
  }
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined;
  try {
    return JSON.parse(text, refuseProto);
  } catch {
    return new ApiError('INVALID_JSON');
  }
}

function refuseProto(key: string, value: unknown): unknown {
  if (key === '__proto__') throw new SyntaxError('__proto__ is not allowed');
  return value;
}
