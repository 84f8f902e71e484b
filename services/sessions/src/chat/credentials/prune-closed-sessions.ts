/** Closed Signal sessions kept per contact device; libsignal itself keeps up to 40. */
export const CLOSED_SESSIONS_KEPT = 4;

interface SerializedSessionRecord {
  _sessions: Record<string, { indexInfo?: { closed?: number } }>;
  version?: unknown;
}

function isSessionRecord(value: unknown): value is SerializedSessionRecord {
  return typeof value === 'object' && value !== null && typeof (value as { _sessions?: unknown })._sessions === 'object';
}

/**
 * Drops all but the newest closed sessions of a serialized libsignal `SessionRecord`. Every
 * re-key closes one session and opens another; libsignal prunes only beyond 40 and only when
 * it encrypts to that device, so a record could grow to ~870 KB (BAILEYS-MEMORY-FINDINGS.md).
 * Old closed sessions only decrypt stragglers from their chain; a few recent ones cover that.
 */
export function pruneClosedSessions<T>(record: T, keep = CLOSED_SESSIONS_KEPT): T {
  if (!isSessionRecord(record)) return record;
  const closed = Object.entries(record._sessions)
    .filter(([, session]) => (session.indexInfo?.closed ?? -1) !== -1)
    .sort(([, a], [, b]) => (b.indexInfo?.closed ?? 0) - (a.indexInfo?.closed ?? 0));
  if (closed.length <= keep) return record;
  const dropped = new Set(closed.slice(keep).map(([key]) => key));
  const sessions = Object.fromEntries(Object.entries(record._sessions).filter(([key]) => !dropped.has(key)));
  return { ...record, _sessions: sessions };
}
