import { idempotencyEventParser, idempotencyStream } from '@switchboard/contracts';
import type { IdempotencyEvent, IdempotencyRef } from '@switchboard/contracts';
import type { EventStore } from '@switchboard/eventstore';
import { eventMetadata, executeCommand, loadAggregate } from '@switchboard/service-kit';
import type { AggregateFold } from '@switchboard/service-kit';
import type { Clock } from '../application/clock.js';
import type { Message } from '../message/state.js';
import { decideClaim, decideRelease, evolveKey, freeKey, holderLetsGo } from './decide.js';
import type { ClaimDecision, KeyState } from './decide.js';

const keyFold: AggregateFold<KeyState, IdempotencyEvent> = {
  initial: freeKey,
  evolve: evolveKey,
  parse: (raw) => idempotencyEventParser.parse(raw),
};

/**
 * Idempotency-Key claims of sends in the messaging service's own store, one stream per account and
 * key hash (`idempotency-<accountId>-<keyHash>`): the first append with the expected revision wins
 * on every replica at once, so two gateways given the same key never send twice.
 */
export class IdempotencyKeys {
  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    /** The message a claim names: whether it lets the key go depends on how it ended. */
    private readonly loadMessage: (messageId: string) => Promise<Message>,
  ) {}

  /** Binds the key to `messageId` (this request sends it), or names the message that holds it. */
  async claim(accountId: string, ref: IdempotencyRef, messageId: string, correlationId?: string): Promise<ClaimDecision> {
    const stream = idempotencyStream(accountId, ref.keyHash);
    const { state: seen } = await loadAggregate(this.store, stream, keyFold);
    // Read before deciding (the decider is pure); a holder that changed meanwhile is kept.
    const freedHolder = seen.kind === 'Held' && holderLetsGo(await this.loadMessage(seen.messageId)) ? seen.messageId : null;
    const request = { accountId, ...ref, messageId };
    let decision: ClaimDecision | undefined;
    await this.execute(stream, accountId, correlationId, (state, now) => {
      decision = decideClaim(state, request, state.kind === 'Held' && state.messageId === freedHolder, now);
      return decision.kind === 'claim' ? [decision.event] : [];
    });
    return decision as ClaimDecision;
  }

  /** Frees the key after its request failed before its message was accepted. */
  async release(accountId: string, ref: IdempotencyRef, messageId: string, code: string, correlationId?: string): Promise<void> {
    await this.execute(idempotencyStream(accountId, ref.keyHash), accountId, correlationId, (state, now) => decideRelease(state, messageId, code, now));
  }

  /** Whether the key is still bound to `messageId` (it may have been released or taken over). */
  async holds(accountId: string, ref: IdempotencyRef, messageId: string): Promise<boolean> {
    const { state } = await loadAggregate(this.store, idempotencyStream(accountId, ref.keyHash), keyFold);
    return state.kind === 'Held' && state.messageId === messageId;
  }

  private async execute(stream: string, accountId: string, correlationId: string | undefined, decide: (state: KeyState, now: Date) => IdempotencyEvent[]): Promise<void> {
    const now = this.clock.now();
    await executeCommand(this.store, stream, keyFold, (state) => decide(state, now), eventMetadata({ accountId, correlationId, now }));
  }
}
