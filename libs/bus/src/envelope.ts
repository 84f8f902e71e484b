import { RemoteError, toRemoteErrorBody } from './errors.js';
import type { RemoteErrorBody } from './errors.js';

/** How every reply travels, on both transports. */
export type ReplyEnvelope = { ok: true; data: unknown } | { ok: false; error: RemoteErrorBody };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeJson(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value ?? null));
}

/** Empty payloads decode to `null` (a publish with no body). */
export function decodeJson(bytes: Uint8Array): unknown {
  return bytes.length === 0 ? null : JSON.parse(decoder.decode(bytes));
}

export function successEnvelope(data: unknown): ReplyEnvelope {
  return { ok: true, data: data ?? null };
}

export function failureEnvelope(error: unknown): ReplyEnvelope {
  return { ok: false, error: toRemoteErrorBody(error) };
}

/**
 * A handler's failure as its caller receives it on either transport (and from a direct answer):
 * only what `toRemoteErrorBody` lets out, as JSON carries it.
 */
export function carriedFailure(subject: string, error: unknown): RemoteError {
  const envelope = JSON.parse(serializeEnvelope(failureEnvelope(error))) as Extract<ReplyEnvelope, { ok: false }>;
  return new RemoteError(subject, envelope.error);
}

/** The reply's data, or the handler's failure as a `RemoteError`. */
export function openEnvelope(subject: string, envelope: unknown): unknown {
  if (typeof envelope !== 'object' || envelope === null || typeof (envelope as { ok?: unknown }).ok !== 'boolean') {
    throw new RemoteError(subject, { code: 'MALFORMED_REPLY', message: 'reply is not a bus reply envelope' });
  }
  const reply = envelope as ReplyEnvelope;
  if (reply.ok) return reply.data;
  const error = typeof reply.error === 'object' && reply.error !== null ? reply.error : toRemoteErrorBody(undefined);
  throw new RemoteError(subject, error);
}

/**
 * The envelope as JSON text. A reply that JSON cannot carry (a BigInt, a cycle) is a handler
 * bug: the caller gets `INTERNAL_ERROR`, on both transports alike.
 */
export function serializeEnvelope(envelope: ReplyEnvelope): string {
  try {
    return JSON.stringify(envelope);
  } catch (error) {
    return JSON.stringify(failureEnvelope(error));
  }
}
