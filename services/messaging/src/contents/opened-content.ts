import type { InboundContent, MessageAccepted, MessageContent, MessageEvent, MessageReceived } from '@switchboard/contracts';

/** A content whose data key was destroyed: only what kind of content it was is left. */
export interface ErasedContent<T extends string> {
  type: 'erased';
  /** The content's type before it was erased (`text`, `media`, …). */
  was: T;
}

/** An outbound message's content as the service reads it: in plain text, or erased. */
export type OpenedMessageContent = MessageContent | ErasedContent<MessageContent['type']>;
/** A received message's content as the service reads it: in plain text, or erased. */
export type OpenedInboundContent = InboundContent | ErasedContent<InboundContent['type']>;

type WithContent<E extends { type: string; version: number; data: { content: unknown } }, C> = {
  type: E['type'];
  version: E['version'];
  data: Omit<E['data'], 'content'> & { content: C };
};

/**
 * A message fact as the messaging service works with it: contents opened (or erased). Decided facts
 * carry contents in plain text; they are sealed as they are stored (MessageFacts.encode) and opened
 * again as they are read (MessageFacts.parse).
 */
export type MessageFact =
  | Exclude<MessageEvent, { type: 'MessageAccepted' | 'MessageReceived' }>
  | WithContent<MessageAccepted, OpenedMessageContent>
  | WithContent<MessageReceived, OpenedInboundContent>;

/** What kind of content it is (`text`, `media`, …), erased or not. */
export function contentTypeOf<T extends string>(content: { type: T } | ErasedContent<T>): T {
  return content.type === 'erased' ? (content as ErasedContent<T>).was : (content as { type: T }).type;
}

export const isErased = <T extends string>(content: { type: string } | ErasedContent<T>): content is ErasedContent<T> => content.type === 'erased';
