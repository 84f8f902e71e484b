import { ApiError } from '@switchboard/contracts';
import type { ContactCheck, ContactCheckRequest } from '@switchboard/contracts';
import { BoundedMap } from '../chat/bounded-map.js';
import { NotConnectedError } from '../chat/errors.js';
import type { ContactLookup } from '../chat/index.js';

/** New numbers a session may look up per window: bursts of lookups of unknown numbers look like a bot. */
export const LOOKUPS_PER_WINDOW = 30;
export const LOOKUP_WINDOW_MS = 60_000;
/** How long an answer is kept per session and number. */
const ANSWER_KEPT_MS = 5 * 60_000;
const ANSWERS_KEPT = 4_096;

/**
 * Whether one more lookup fits in the window: the times of the lookups made (oldest first, inside
 * the window or not) against the limit. When it does not, how long until the oldest leaves it.
 */
export function admitLookup(madeAtMs: readonly number[], nowMs: number, limit = LOOKUPS_PER_WINDOW, windowMs = LOOKUP_WINDOW_MS): { admitted: true } | { admitted: false; retryAfterMs: number } {
  const recent = madeAtMs.filter((at) => nowMs - at < windowMs);
  if (recent.length < limit) return { admitted: true };
  return { admitted: false, retryAfterMs: recent[0]! + windowMs - nowMs };
}

/**
 * GET /v1/sessions/{id}/contacts/{phone}: the network asked through the session's own connection,
 * each answer kept a while per session and number (repeats cost nothing), new lookups limited per
 * session (`admitLookup`).
 */
export class ContactChecks {
  readonly #answers = new BoundedMap<string, ContactLookup>(ANSWERS_KEPT, ANSWER_KEPT_MS);
  /** Each session's recent lookups; a session quiet for a window is forgotten. */
  readonly #lookups = new BoundedMap<string, number[]>(ANSWERS_KEPT, LOOKUP_WINDOW_MS);

  constructor(private readonly now: () => number = Date.now) {}

  async check(request: ContactCheckRequest, lookup: (phone: string) => Promise<ContactLookup>): Promise<ContactCheck> {
    const key = `${request.sessionId}:${request.phone}`;
    const known = this.#answers.get(key);
    if (known) return { phone: request.phone, ...known };
    const now = this.now();
    const made = (this.#lookups.get(request.sessionId) ?? []).filter((at) => now - at < LOOKUP_WINDOW_MS);
    const admission = admitLookup(made, now);
    if (!admission.admitted) {
      const retryAfterSeconds = Math.ceil(admission.retryAfterMs / 1000);
      throw new ApiError('CONTACT_CHECK_LIMIT_REACHED', `This session may look up ${LOOKUPS_PER_WINDOW} new numbers a minute; retry in ${retryAfterSeconds} s.`, { limit: LOOKUPS_PER_WINDOW, retryAfterSeconds });
    }
    this.#lookups.set(request.sessionId, [...made, now]);
    const answer = await lookup(request.phone);
    this.#answers.set(key, answer);
    return { phone: request.phone, ...answer };
  }
}

/** A lookup the network did not answer, as the client sees it. */
export function lookupFailure(error: unknown): ApiError {
  // The session is connected, but its socket is being restored after a drop.
  if (error instanceof NotConnectedError) return new ApiError('SERVICE_UNAVAILABLE', 'The session is reconnecting to the chat network; retry shortly.');
  return new ApiError('CHAT_NETWORK_ERROR', 'The chat network did not answer the lookup; retry later.');
}
