import type { AccountId, MessageId, Phone, SessionId } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';

/**
 * What `audit history` is asked about.
 *
 * Glossary:
 * - fact: one recorded event, as a store holds it.
 * - reply window: the contact's messages to the session after one of ours, up to the next message
 *   the session sends them: what "the replies to a message" means in a chat.
 */
export type FactQuery =
  | { by: 'message'; messageId: MessageId }
  | { by: 'session'; sessionId: SessionId }
  | { by: 'account'; accountId: AccountId }
  | { by: 'contact'; phone: Phone };

/** Recorded at or after `from` and before `to`; an absent bound leaves that side open. */
export interface TimeWindow {
  from: Date | undefined;
  to: Date | undefined;
}

export const inWindow = (window: TimeWindow, at: Date): boolean =>
  (window.from === undefined || at >= window.from) && (window.to === undefined || at < window.to);

type Data = Record<string, unknown>;
const dataOf = (event: RecordedEvent): Data => (typeof event.data === 'object' && event.data !== null ? event.data as Data : {});

/** Whether a fact is the account's: its metadata names the account (every event does), or its data does. */
export function ofAccount(event: RecordedEvent, accountId: string): boolean {
  return event.metadata['accountId'] === accountId || dataOf(event)['accountId'] === accountId;
}

/** The facts that open a message stream: ours accepted, or the contact's received (a reaction is a message too). */
const OPENING = new Set(['MessageAccepted', 'MessageReceived', 'MessageReactionReceived']);

/** A message stream's first fact through `sessionId`: accepted for it, or received by it. */
export const openedInSession = (sessionId: string) => (event: RecordedEvent): boolean =>
  OPENING.has(event.type) && dataOf(event)['sessionId'] === sessionId;

/** A message stream's first fact with `phone`: accepted to it, or received from it. */
export const openedWithContact = (phone: string) => (event: RecordedEvent): boolean => {
  if (!OPENING.has(event.type)) return false;
  const data = dataOf(event);
  return event.type === 'MessageAccepted' ? data['to'] === phone : data['from'] === phone;
};

/**
 * Picks whole message streams (a scan of the message category in log order): a stream whose first
 * fact `opens` is picked from there on, every later fact of it too (its receipts name only the
 * message). Keeps one stream name per message picked, nothing per fact read.
 */
export function messageStreamsWhere(opens: (event: RecordedEvent) => boolean): (event: RecordedEvent) => boolean {
  const picked = new Set<string>();
  return (event) => {
    if (picked.has(event.stream)) return true;
    if (event.revision !== 0n || !opens(event)) return false;
    picked.add(event.stream);
    return true;
  };
}

/** What a sent message's first fact says of where it went. */
export interface SentMessage {
  stream: string;
  sessionId: string;
  contact: string;
  /** Its last revision when its stream was read: the scan may stop once it has seen it again. */
  lastRevision: bigint;
}

/**
 * A sent message's facts and the contact's replies, fed the message category in log order from
 * the message's acceptance on: every fact of its stream, and what the contact sent to the same
 * session until the session's next message to them (then the window closes). `finished` once the
 * window is closed and the message's facts known when it was read have come by: the scan can stop.
 */
export class ReplyWindow {
  #open = true;
  #lastSeen = -1n;

  constructor(private readonly message: SentMessage) {}

  pick(event: RecordedEvent): boolean {
    if (event.stream === this.message.stream) {
      this.#lastSeen = event.revision;
      return true;
    }
    if (!this.#open || event.revision !== 0n) return false;
    const data = dataOf(event);
    if (data['sessionId'] !== this.message.sessionId) return false;
    if (event.type === 'MessageAccepted') {
      if (data['to'] === this.message.contact) this.#open = false;
      return false;
    }
    return OPENING.has(event.type) && data['from'] === this.message.contact;
  }

  get finished(): boolean {
    return !this.#open && this.#lastSeen >= this.message.lastRevision;
  }
}

/** The sent message a stream's events describe (its first fact MessageAccepted), or undefined (received, or none). */
export function sentMessageOf(events: readonly RecordedEvent[]): SentMessage | undefined {
  const first = events[0];
  if (first?.type !== 'MessageAccepted') return undefined;
  const data = dataOf(first);
  return { stream: first.stream, sessionId: String(data['sessionId']), contact: String(data['to']), lastRevision: events.at(-1)!.revision };
}

/** The usage stream a sent message's unit was taken from: `usage-<accountId>-<usageDay>`. */
export function usageStreamOf(accepted: RecordedEvent): string | undefined {
  const data = dataOf(accepted);
  return typeof data['accountId'] === 'string' && typeof data['usageDay'] === 'string' ? `usage-${data['accountId']}-${data['usageDay']}` : undefined;
}

/** Facts whose data names `field: value` (a message's unit in its usage stream, a session's slot in its account stream). */
export const naming = (field: string, value: string) => (event: RecordedEvent): boolean => dataOf(event)[field] === value;
