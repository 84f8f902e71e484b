import { idempotencyStream, sessionKeyEventParser } from '@switchboard/contracts';
import type { IdempotencyRef, SessionKeyEvent } from '@switchboard/contracts';
import { currentInboundHeaders } from '@switchboard/bus';
import type { EventStore } from '@switchboard/eventstore';
import { eventMetadata, executeCommand } from '@switchboard/service-kit';
import type { AggregateFold } from '@switchboard/service-kit';
import { decideClaim, decideRelease, evolveKey, freeKey } from './decide.js';
import type { ClaimDecision, KeyState } from './decide.js';

const keyFold: AggregateFold<KeyState, SessionKeyEvent> = {
  initial: freeKey,
  evolve: evolveKey,
  parse: (raw) => sessionKeyEventParser.parse(raw) as SessionKeyEvent,
};

/**
 * Idempotency-Key claims of session creates in the sessions service's own store. The first append
 * to `idempotency-<accountId>-<keyHash>` (expected revision `no_stream`, or the revision of an
 * expired or released claim) wins on every replica at once; a loser re-reads and replays.
 */
export class SessionKeys {
  constructor(
    private readonly store: EventStore,
    private readonly clock: () => Date,
  ) {}

  /** Binds the key to `sessionId` (this request creates it), or names the session that holds it. */
  async claim(accountId: string, idempotency: IdempotencyRef, sessionId: string): Promise<ClaimDecision> {
    let decision: ClaimDecision | undefined;
    const request = { accountId, ...idempotency, sessionId };
    await this.execute(accountId, idempotency.keyHash, (state, now) => {
      decision = decideClaim(state, request, now);
      return decision.kind === 'claim' ? [decision.event] : [];
    });
    return decision as ClaimDecision;
  }

  /** Frees the key after the create it was claimed for failed (the client got an error). */
  async release(accountId: string, keyHash: string, sessionId: string, code: string): Promise<void> {
    await this.execute(accountId, keyHash, (state, now) => decideRelease(state, sessionId, code, now));
  }

  private async execute(accountId: string, keyHash: string, decide: (state: KeyState, now: Date) => SessionKeyEvent[]): Promise<void> {
    const now = this.clock();
    const metadata = eventMetadata({ accountId, correlationId: currentInboundHeaders()?.['correlation-id'], now });
    await executeCommand(this.store, idempotencyStream(accountId, keyHash), keyFold, (state) => decide(state, now), metadata);
  }
}
