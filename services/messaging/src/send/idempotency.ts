import { createHash } from 'node:crypto';
import { ApiError, IDEMPOTENCY_WINDOW_MS, idempotencyEventParser, idempotencyStream } from '@switchboard/contracts';
import type { IdempotencyEvent } from '@switchboard/contracts';
import type { EventStore, ExpectedRevision } from '@switchboard/eventstore';
import { WrongExpectedRevisionError } from '@switchboard/eventstore';
import { eventMetadata, toNewEvent, toRawEvent } from '@switchboard/service-kit';
import type { Clock } from '../application/clock.js';

/** The request that holds a key, if one does within the 24 h window. */
interface Holder {
  messageId: string;
  requestHash: string;
}

/** `fresh`: this request now holds the key and sends `messageId`; `replay`: an earlier one does. */
export type Claim = { kind: 'fresh'; messageId: string } | { kind: 'replay'; messageId: string };

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

/**
 * Idempotency-Key claims in the messaging service's own store, one stream per account and key:
 * the first append (expected revision) wins on every replica at once, so two gateways given the
 * same key never send twice.
 */
export class IdempotencyKeys {
  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
  ) {}

  /** Binds the key to this request (minting its message id), or names the request that holds it. */
  async claim(accountId: string, key: string, requestHash: string, mintMessageId: () => string, correlationId?: string): Promise<Claim> {
    const stream = idempotencyStream(accountId, sha256Hex(key));
    for (let attempt = 0; attempt < 10; attempt++) {
      const { holder, revision } = await this.read(stream);
      if (holder !== null) {
        if (holder.requestHash !== requestHash) throw new ApiError('IDEMPOTENCY_KEY_REUSED');
        return { kind: 'replay', messageId: holder.messageId };
      }
      const now = this.clock.now();
      const messageId = mintMessageId();
      const event: IdempotencyEvent = {
        type: 'IdempotencyKeyClaimed',
        version: 1,
        data: { accountId, keyHash: sha256Hex(key), requestHash, messageId, claimedAt: now.toISOString() },
      };
      try {
        await this.store.append(stream, [toNewEvent(event, eventMetadata({ accountId, correlationId, now }))], { expectedRevision: revision });
        return { kind: 'fresh', messageId };
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError)) throw error;
      }
    }
    throw new ApiError('SERVICE_UNAVAILABLE', 'Too many concurrent requests with this Idempotency-Key; retry.');
  }

  /** Frees the key after its request failed before anything was accepted or sent. */
  async release(accountId: string, key: string, messageId: string, code: string, correlationId?: string): Promise<void> {
    const stream = idempotencyStream(accountId, sha256Hex(key));
    const now = this.clock.now();
    const event: IdempotencyEvent = { type: 'IdempotencyKeyReleased', version: 1, data: { messageId, code, releasedAt: now.toISOString() } };
    await this.store.append(stream, [toNewEvent(event, eventMetadata({ accountId, correlationId, now }))], { expectedRevision: 'any' });
  }

  /** Whether the key is still bound to `messageId` (it may have been released meanwhile). */
  async holds(accountId: string, key: string, messageId: string): Promise<boolean> {
    const { holder } = await this.read(idempotencyStream(accountId, sha256Hex(key)));
    return holder?.messageId === messageId;
  }

  private async read(stream: string): Promise<{ holder: Holder | null; revision: ExpectedRevision }> {
    const recorded = await this.store.readStream(stream);
    let holder: (Holder & { claimedAt: string }) | null = null;
    for (const r of recorded) {
      const event = idempotencyEventParser.parse(toRawEvent(r));
      if (event.type === 'IdempotencyKeyClaimed') holder = { ...event.data };
      else if (holder?.messageId === event.data.messageId) holder = null;
    }
    const expired = holder !== null && this.clock.now().getTime() - Date.parse(holder.claimedAt) >= IDEMPOTENCY_WINDOW_MS;
    const last = recorded.at(-1);
    return { holder: expired ? null : holder, revision: last ? last.revision : 'no_stream' };
  }
}
