import { isSealed, messageEventParser } from '@switchboard/contracts';
import type { InboundContent, MessageContent, RawEvent, SealedInboundContent, SealedMessageContent, StoredMessageEvent } from '@switchboard/contracts';
import type { RecordedEvent } from '@switchboard/eventstore';
import type { DomainEvent } from '@switchboard/service-kit';
import { ERASED } from './content-keys.js';
import type { ContentKeys, KeyRef } from './content-keys.js';
import type { MessageFact, OpenedInboundContent, OpenedMessageContent } from './opened-content.js';

/**
 * How message facts are stored and read: contents sealed under the account's data key on the way
 * in (MessageAccepted@3, MessageReceived@2), opened on the way out, erased once the key is gone.
 * Facts written before sealing existed hold their contents in plain text and are read as they are.
 * `prepare` loads the keys a batch of stored events needs; `parse` and `encode` are synchronous.
 */
export class MessageFacts {
  constructor(readonly keys: ContentKeys) {}

  /** Loads the keys of the sealed contents among `recorded`. */
  prepare(recorded: readonly (RecordedEvent | { data: unknown })[]): Promise<void> {
    return this.keys.prepare(sealedRefsOf(recorded));
  }

  /** A stored event as a fact, its content opened (the keys prepared). */
  parse(raw: RawEvent): MessageFact {
    return this.open(messageEventParser.parse(raw));
  }

  /** A parsed stored event with its content opened (or erased). */
  open(event: StoredMessageEvent): MessageFact {
    if (event.type === 'MessageAccepted') {
      const d = event.data;
      const content = isSealed(d.content) ? this.openOutbound(d.accountId, d.messageId, d.content) : d.content;
      return { type: 'MessageAccepted', version: 2, data: { ...d, content } };
    }
    if (event.type === 'MessageReceived') {
      const d = event.data;
      const content = isSealed(d.content) ? this.openInbound(d.accountId, d.messageId, d.content) : d.content;
      return { type: 'MessageReceived', version: 1, data: { ...d, content } };
    }
    return event;
  }

  /** A decided fact as it is stored: its content sealed with the account's live key (`sealingKey` loaded it). */
  encode(fact: MessageFact): DomainEvent {
    if (fact.type === 'MessageAccepted') {
      const d = fact.data;
      if (d.content.type === 'erased') throw new Error('an erased content cannot be recorded');
      return { type: 'MessageAccepted', version: 3, data: { ...d, content: this.keys.seal(d.accountId, d.messageId, d.content) } };
    }
    if (fact.type === 'MessageReceived') {
      const d = fact.data;
      if (d.content.type === 'erased') throw new Error('an erased content cannot be recorded');
      return { type: 'MessageReceived', version: 2, data: { ...d, content: this.keys.seal(d.accountId, d.messageId, d.content) } };
    }
    return fact;
  }

  // What opens is what was sealed, a content validated before it was recorded: AES-GCM
  // authenticates it (bound to this account, message and key), so it is not parsed again.

  openOutbound(accountId: string, messageId: string, sealed: SealedMessageContent): OpenedMessageContent {
    const opened = this.keys.open(accountId, messageId, sealed);
    return opened === ERASED ? { type: 'erased', was: sealed.type } : (opened as MessageContent);
  }

  openInbound(accountId: string, messageId: string, sealed: SealedInboundContent): OpenedInboundContent {
    const opened = this.keys.open(accountId, messageId, sealed);
    return opened === ERASED ? { type: 'erased', was: sealed.type } : (opened as InboundContent);
  }
}

/** The account and key of every sealed content among stored events (read from the raw data, before parsing). */
export function sealedRefsOf(recorded: readonly { data: unknown }[]): KeyRef[] {
  const refs: KeyRef[] = [];
  for (const { data } of recorded) {
    const d = data as { accountId?: unknown; content?: { keyId?: unknown } } | null;
    const keyId = d?.content?.keyId;
    if (typeof keyId === 'string' && typeof d?.accountId === 'string') refs.push({ accountId: d.accountId, keyId });
  }
  return refs;
}
