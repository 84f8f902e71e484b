import { isSealed, messageEventParser } from '@switchboard/contracts';
import type { SealedInboundContent, SealedMessageContent } from '@switchboard/contracts';
import { MessageFacts, openContentKeys } from '@switchboard/messaging';
import type { OpenedContentKeys } from '@switchboard/messaging';
import type { SwitchboardConfig } from '@switchboard/service-kit';
import { toRawEvent } from '@switchboard/service-kit';
import type { StoredFact } from './fact-sources.js';

/**
 * Message contents as `audit history` shows them: the record holds them sealed under the account's
 * data key (issue 16); they are opened with the messaging service's keys, read where the service
 * keeps them (its SQLite file, or its KV bucket with SWITCHBOARD_NATS_URL). Erased contents show as
 * `{type, erased: true}`; without the keys at hand (none stored yet, no SWITCHBOARD_SECRET_KEY),
 * as `{type, sealed: true}`. The stored events are never changed.
 */
export class ContentOpener {
  private constructor(private readonly opened: { keys: OpenedContentKeys; facts: MessageFacts } | undefined) {}

  static async open(config: SwitchboardConfig): Promise<ContentOpener> {
    const keys = await openContentKeys(config, { ifExists: true }).catch(() => undefined);
    return new ContentOpener(keys && { keys, facts: new MessageFacts(keys.keys) });
  }

  /** The facts with their sealed contents opened (or marked erased or sealed). */
  async openAll(facts: readonly StoredFact[]): Promise<StoredFact[]> {
    const sealed = facts.filter((f) => isSealedFact(f));
    if (sealed.length === 0) return [...facts];
    await this.opened?.facts.prepare(sealed.map((f) => f.event)).catch(() => undefined);
    return facts.map((fact) => (isSealedFact(fact) ? this.withContent(fact) : fact));
  }

  async close(): Promise<void> {
    await this.opened?.keys.close();
  }

  private withContent(fact: StoredFact): StoredFact {
    const parsed = messageEventParser.parse(toRawEvent(fact.event));
    if (parsed.type !== 'MessageAccepted' && parsed.type !== 'MessageReceived') return fact;
    const sealed = parsed.data.content as SealedMessageContent | SealedInboundContent;
    let content: unknown = { type: sealed.type, sealed: true };
    try {
      const opened = this.opened?.facts.open(parsed);
      if (opened && (opened.type === 'MessageAccepted' || opened.type === 'MessageReceived')) {
        const c = opened.data.content;
        content = c.type === 'erased' ? { type: c.was, erased: true } : c;
      }
    } catch {
      // A key this process could not load: shown as sealed.
    }
    return { ...fact, event: { ...fact.event, data: { ...(fact.event.data as object), content } } };
  }
}

function isSealedFact({ event }: StoredFact): boolean {
  if (event.type !== 'MessageAccepted' && event.type !== 'MessageReceived') return false;
  const content = (event.data as { content?: unknown } | null)?.content;
  return typeof content === 'object' && content !== null && isSealed(content as { type: string });
}
