import { factDetails, shownData } from './fact-details.js';
import type { FactQuery, TimeWindow } from './fact-query.js';
import type { StoredFact } from './fact-sources.js';

/**
 * One fact as a line: when it was recorded, by which service, what happened, in which stream, the
 * fields that matter, and the request that caused it (its correlation id; the causation id when it
 * names something else: a stored event `message-msg_…@0`, or a receipt from the chat network).
 *
 * `2026-11-21T10:15:30.123Z  messaging  MessageSent              message-msg_01J…  network id 3EB0…  [request 4bf9…]`
 */
export function factLine({ service, event }: StoredFact): string {
  const details = factDetails(event.type, event.data);
  return `${event.recordedAt.toISOString()}  ${service.padEnd(9)}  ${event.type.padEnd(23)}  ${event.stream}  ${details}${details ? '  ' : ''}${causeOf(event.metadata)}`;
}

/** One fact as `--json` shows it: the record, less what stands for a secret, with its summary. */
export function factJson({ service, event }: StoredFact): object {
  const { correlationId, causationId } = event.metadata;
  return {
    recordedAt: event.recordedAt.toISOString(),
    service,
    stream: event.stream,
    revision: Number(event.revision),
    position: Number(event.position),
    type: event.type,
    summary: factDetails(event.type, event.data),
    data: shownData(event.data),
    requestId: typeof correlationId === 'string' ? correlationId : null,
    causationId: typeof causationId === 'string' ? causationId : null,
  };
}

function causeOf(metadata: Record<string, unknown>): string {
  const { correlationId, causationId } = metadata;
  if (typeof correlationId !== 'string') return '[no request recorded]';
  return typeof causationId === 'string' && causationId !== correlationId ? `[request ${correlationId}; caused by ${causationId}]` : `[request ${correlationId}]`;
}

/** The query in words, for the last line. */
export function queryText(query: FactQuery, window: TimeWindow): string {
  const what = query.by === 'contact' ? `contact ${query.phone}` : `${query.by} ${'messageId' in query ? query.messageId : 'sessionId' in query ? query.sessionId : query.accountId}`;
  const from = window.from ? ` from ${window.from.toISOString()}` : '';
  const to = window.to ? ` before ${window.to.toISOString()}` : '';
  return `${what}${from}${to}`;
}

/** The last line: how many facts, and how many events the scans read to find them. */
export function historySummary(facts: number, scanned: number, query: FactQuery, window: TimeWindow): string {
  const found = facts === 0 ? `No facts recorded for ${queryText(query, window)}` : `${facts} fact${facts === 1 ? '' : 's'} of ${queryText(query, window)}`;
  return scanned > 0 ? `${found} (${scanned.toLocaleString('en-US')} events scanned).` : `${found}.`;
}
