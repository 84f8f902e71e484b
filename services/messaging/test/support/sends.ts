import { MessagingSubjects, idempotencyKeyHash, idempotencyRequestHash } from '@switchboard/contracts';
import type { MessageStatusView, RequestInput, SendMessageReply } from '@switchboard/contracts';
import type { Cluster } from './cluster.js';
import { eventually } from './cluster.js';

type Kind = 'text' | 'media' | 'location' | 'buttons';
const SUBJECT = {
  text: MessagingSubjects.sendText,
  media: MessagingSubjects.sendMedia,
  location: MessagingSubjects.sendLocation,
  buttons: MessagingSubjects.sendButtons,
} as const;

export type Outcome =
  | { ok: true; data: SendMessageReply & { mediaType?: string } }
  | { ok: false; code: string; message: string; details: unknown };

/**
 * One send as the gateway makes it (an Idempotency-Key hashed with the request); a refusal comes
 * back as its code, message and details.
 */
export async function send(cluster: Cluster, kind: Kind, accountId: string, body: Record<string, unknown>, idempotencyKey?: string): Promise<Outcome> {
  const idempotency = idempotencyKey ? { idempotency: { keyHash: idempotencyKeyHash(idempotencyKey), requestHash: idempotencyRequestHash(kind, body) } } : {};
  const request = { accountId, body, ...idempotency } as RequestInput<(typeof SUBJECT)[Kind]>;
  try {
    return { ok: true, data: await cluster.call(SUBJECT[kind], request as never) };
  } catch (error) {
    const e = error as { code?: string; message?: string; details?: unknown };
    return { ok: false, code: e.code ?? 'UNKNOWN', message: e.message ?? '', details: e.details };
  }
}

export async function sent(cluster: Cluster, kind: Kind, accountId: string, body: Record<string, unknown>, idempotencyKey?: string) {
  const outcome = await send(cluster, kind, accountId, body, idempotencyKey);
  if (!outcome.ok) throw new Error(`send refused: ${outcome.code} ${outcome.message}`);
  return outcome.data;
}

export async function lookup(cluster: Cluster, accountId: string, messageId: string): Promise<MessageStatusView | string> {
  try {
    const view = await cluster.call(MessagingSubjects.get, { accountId, messageId });
    return view.direction === 'out' ? view : 'NOT_OUTBOUND';
  } catch (error) {
    return (error as { code?: string }).code ?? 'UNKNOWN';
  }
}

/** Waits until the status lookup shows `status`. */
export function statusBecomes(cluster: Cluster, accountId: string, messageId: string, status: string, timeoutMs = 30_000): Promise<MessageStatusView> {
  return eventually(async () => {
    const view = await lookup(cluster, accountId, messageId);
    return typeof view !== 'string' && view.status === status ? view : undefined;
  }, timeoutMs);
}
