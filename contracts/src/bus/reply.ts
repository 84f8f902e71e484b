import { z } from 'zod';
import { ApiError, BusError } from '../errors/api-error.js';

/**
 * Bus reply: every request/reply subject answers `{ ok: true, data }` or `{ ok: false, error }`.
 * Expected failures travel as data, not as transport errors, so the gateway can map the code to
 * its HTTP status without guessing.
 */
export function busReply<T extends z.ZodType>(data: T) {
  return z.discriminatedUnion('ok', [
    z.object({ ok: z.literal(true), data }),
    z.object({ ok: z.literal(false), error: BusError }),
  ]);
}

export type BusReply<T> = { ok: true; data: T } | { ok: false; error: BusError };

export function busOk<T>(data: T): BusReply<T> {
  return { ok: true, data };
}

export function busFail(error: ApiError | BusError): BusReply<never> {
  return { ok: false, error: error instanceof ApiError ? error.toBusError() : error };
}

/** The data of a successful reply, or the reply's error thrown as an ApiError. */
export function unwrapBusReply<T>(reply: BusReply<T>): T {
  if (reply.ok) return reply.data;
  throw ApiError.fromBusError(reply.error);
}
