import { publicEventId } from '@switchboard/contracts';
import type { MessageFailure, PublicEvent, StoredMessageEvent } from '@switchboard/contracts';
import type { MessageFact } from '../contents/opened-content.js';
import { ERASED_HISTORY_CONTENT, inboundHistoryContent } from '../projections/message-history/content.js';

// Message facts as the public catalogue tells them (issue 11). Outbound: `message.status` on
// sent, delivered, read and failed, never backwards. Inbound: `message.received` from
// MessageReceived (the history item), `message.reaction` from MessageReactionReceived.

/** How far an outbound message got; a later fact of a lower rank is not told again. */
const RANK = { accepted: 0, sent: 1, delivered: 2, read: 3, failed: 4 } as const;
export type OutboundProgress = keyof typeof RANK;

/** What the earlier facts of the message's stream established. */
export interface MessageContext {
  sessionId: string | null;
  progress: OutboundProgress | null;
}

export const EMPTY_CONTEXT: MessageContext = { sessionId: null, progress: null };

/**
 * A fact as the feed needs it: a received message's content opened (`message.received` carries
 * it), an outbound message's content as stored, sealed or not (no public event carries it).
 */
export type FeedFact = MessageFact | Exclude<StoredMessageEvent, { type: 'MessageReceived' }>;

/** The context after one more fact of the same stream (no content is read). */
export function contextAfter(context: MessageContext, event: FeedFact | StoredMessageEvent): MessageContext {
  switch (event.type) {
    case 'MessageAccepted':
      return { sessionId: event.data.sessionId, progress: 'accepted' };
    case 'MessageSent':
    case 'MessageDelivered':
    case 'MessageRead':
    case 'MessageFailed': {
      const progress = progressOf(event);
      return context.progress !== null && RANK[context.progress] >= RANK[progress] ? context : { ...context, progress };
    }
    default:
      return context;
  }
}

function progressOf(event: FeedFact & { type: 'MessageSent' | 'MessageDelivered' | 'MessageRead' | 'MessageFailed' }): OutboundProgress {
  const byType = { MessageSent: 'sent', MessageDelivered: 'delivered', MessageRead: 'read', MessageFailed: 'failed' } as const;
  return byType[event.type];
}

/** A stored message fact with what the mapping needs beside its data. */
export interface RecordedFact {
  eventId: string;
  event: FeedFact;
}

/**
 * The public event of one message fact given what came before it in its stream, or null (an
 * acceptance, a refund, a status that would go backwards, a stream without its acceptance).
 */
export function toPublicEvent(fact: RecordedFact, before: MessageContext): PublicEvent | null {
  const { event } = fact;
  switch (event.type) {
    case 'MessageSent':
      return status(fact, event.data.messageId, before, 'sent', event.data.sentAt, null);
    case 'MessageDelivered':
      return status(fact, event.data.messageId, before, 'delivered', event.data.deliveredAt, null);
    case 'MessageRead':
      return status(fact, event.data.messageId, before, 'read', event.data.readAt, null);
    case 'MessageFailed':
      return status(fact, event.data.messageId, before, 'failed', event.data.failedAt, { code: event.data.code, message: event.data.message });
    case 'MessageReceived':
      return received(fact.eventId, event.data);
    case 'MessageReactionReceived': {
      const d = event.data;
      const type = 'message.reaction';
      const data = { messageId: d.targetMessageId ?? d.targetNetworkId, sessionId: d.sessionId, from: d.from, emoji: d.emoji };
      return { id: publicEventId(fact.eventId, type), type, timestamp: d.receivedAt, data };
    }
    default:
      return null;
  }
}

/** `message.received`: the message as its history item (media as metadata and its path; `[erased]` once erased). */
function received(eventId: string, d: Extract<MessageFact, { type: 'MessageReceived' }>['data']): PublicEvent {
  const { type: historyType, content } = d.content.type === 'erased'
    ? { type: d.content.was, content: ERASED_HISTORY_CONTENT }
    : inboundHistoryContent(d.content, d.messageId);
  const type = 'message.received';
  const data = {
    ...content,
    messageId: d.messageId,
    direction: 'in' as const,
    sessionId: d.sessionId,
    from: d.from,
    to: d.to,
    ...(d.fromLid ? { fromLid: d.fromLid } : {}),
    type: historyType,
    quotedMessageId: d.quotedMessageId ?? d.quotedNetworkId,
    timestamp: d.sentAt,
  };
  return { id: publicEventId(eventId, type), type, timestamp: d.receivedAt, data };
}

function status(
  fact: RecordedFact,
  messageId: string,
  before: MessageContext,
  next: 'sent' | 'delivered' | 'read' | 'failed',
  timestamp: string,
  error: MessageFailure | null,
): PublicEvent | null {
  if (before.sessionId === null) return null;
  if (before.progress !== null && RANK[before.progress] >= RANK[next]) return null;
  const type = 'message.status';
  const data = { messageId, sessionId: before.sessionId, status: next, timestamp, error };
  return { id: publicEventId(fact.eventId, type), type, timestamp, data };
}
