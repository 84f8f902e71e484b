/**
 * What a commit's NOTIFY says: which store committed (`origin`, one per store object) and the
 * categories its events went to, so that a listener wakes only the subscriptions those events
 * concern and a store skips the echo of its own commits (it woke its subscriptions itself, with
 * the categories, once the commit returned).
 */
export interface AppendAnnouncement {
  origin: string;
  /** Undefined: not known (a payload too long to carry them, or one from a build before them), so every subscription wakes. */
  categories: readonly string[] | undefined;
}

/** NOTIFY payloads are limited to 8,000 bytes; one with too many categories names none. */
const MAX_PAYLOAD_BYTES = 7_900;

export function announcementPayload({ origin, categories }: AppendAnnouncement): string {
  const payload = JSON.stringify({ origin, categories });
  return Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES ? payload : JSON.stringify({ origin });
}

/**
 * The announcement a payload carries, or undefined when it is not one: an older build announced
 * the bare last position, which says nothing of its origin or categories (wake every subscription).
 */
export function readAnnouncement(payload: string | undefined): AppendAnnouncement | undefined {
  if (payload === undefined || !payload.startsWith('{')) return undefined;
  try {
    const parsed = JSON.parse(payload) as { origin?: unknown; categories?: unknown };
    if (typeof parsed.origin !== 'string') return undefined;
    const categories = Array.isArray(parsed.categories) && parsed.categories.every((c) => typeof c === 'string') ? (parsed.categories as string[]) : undefined;
    return { origin: parsed.origin, categories };
  } catch {
    return undefined;
  }
}
