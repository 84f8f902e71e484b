import { ApiError, IDEMPOTENCY_WINDOW_MS, idempotencyStream } from '@switchboard/contracts';
import type { IdempotencyRef, RawEvent } from '@switchboard/contracts';
import type { EventStore } from '@switchboard/eventstore';
import { executeCommand, loadAggregate } from './command-handler.js';
import type { AggregateFold } from './command-handler.js';
import type { DomainEvent } from './stored-events.js';
import { eventMetadata } from './stored-events.js';

// The one Idempotency-Key mechanism of every service (api-decisions.md: the same key and body
// within 24 h answer for the first request). The gateway hands over hashes only (IdempotencyRef);
// each service keeps the claims in its own store, one stream per account and key, in events of
// its own vocabulary (a session create's, a send's) that an adapter reads and writes here.

/** What an event says of a key: claimed for a resource (a session, a message), or released by it. */
export type KeyFact =
  | { kind: 'claimed'; resourceId: string; requestHash: string; claimedAt: string }
  | { kind: 'released'; resourceId: string };

/** A service's key events: parsed, read as facts, and written for a claim or a release. */
export interface KeyEvents<E extends DomainEvent> {
  parse(raw: RawEvent): E;
  read(event: E): KeyFact;
  claimed(claim: { accountId: string; keyHash: string; requestHash: string; resourceId: string; claimedAt: string }): E;
  released(release: { resourceId: string; code: string; releasedAt: string }): E;
}

/** A key: free, or bound to the first request (its body's hash) and the resource it made. */
export type KeyState = { status: 'free' } | { status: 'held'; resourceId: string; requestHash: string; claimedAt: string };

export const freeKey: KeyState = { status: 'free' };

export function evolveKey(state: KeyState, fact: KeyFact): KeyState {
  if (fact.kind === 'claimed') return { status: 'held', resourceId: fact.resourceId, requestHash: fact.requestHash, claimedAt: fact.claimedAt };
  // A release frees the key only for the claim it names (a late release of an older one is stale).
  return state.status === 'held' && state.resourceId === fact.resourceId ? freeKey : state;
}

/** A request asking for a key, at `now`: its body's hash and the resource it would make. */
export interface ClaimRequest {
  requestHash: string;
  resourceId: string;
  now: Date;
  /** Whether the holder's resource lets the key go (e.g. a send that failed before the network). */
  holderLetsGo: boolean;
}

/** `claim`: this request makes `resourceId`; `replay`: answer for the holder's. */
export type ClaimDecision = { kind: 'claim'; resourceId: string } | { kind: 'replay'; resourceId: string; claimedAt: string };

/** Same key, another body (api-decisions.md: 409). */
export class IdempotencyKeyReused extends ApiError {
  constructor() {
    super('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used for a different request body.');
  }
}

/**
 * The first claim within 24 h holds the key: the same body replays its resource, another body is
 * refused. A free key, an expired claim, or one whose holder lets it go is claimed by this request.
 */
export function decideClaim(state: KeyState, request: ClaimRequest): ClaimDecision {
  const { now } = request;
  if (state.status === 'held' && !request.holderLetsGo && now.getTime() - Date.parse(state.claimedAt) < IDEMPOTENCY_WINDOW_MS) {
    if (state.requestHash !== request.requestHash) throw new IdempotencyKeyReused();
    return { kind: 'replay', resourceId: state.resourceId, claimedAt: state.claimedAt };
  }
  return { kind: 'claim', resourceId: request.resourceId };
}

/** Whether a release by `resourceId` frees the key: only while that claim holds it. */
export function decideRelease(state: KeyState, resourceId: string): boolean {
  return state.status === 'held' && state.resourceId === resourceId;
}

export interface IdempotencyKeysOptions<E extends DomainEvent> {
  store: EventStore;
  clock: () => Date;
  events: KeyEvents<E>;
  /** Whether the resource a claim names lets its key go; by default it never does before 24 h. */
  holderLetsGo?: (resourceId: string) => Promise<boolean>;
}

/**
 * Idempotency-Key claims in a service's own store (`idempotency-<accountId>-<keyHash>`): the first
 * append with the expected revision wins on every replica at once, so two gateways given the
 * same key never make two resources; a loser re-reads and replays.
 */
export class IdempotencyKeys<E extends DomainEvent> {
  private readonly fold: AggregateFold<KeyState, E>;

  constructor(private readonly options: IdempotencyKeysOptions<E>) {
    const { events } = options;
    this.fold = { initial: freeKey, evolve: (state, event) => evolveKey(state, events.read(event)), parse: (raw) => events.parse(raw) };
  }

  /** Binds the key to `resourceId` (this request makes it), or names the resource that holds it. */
  async claim(accountId: string, ref: IdempotencyRef, resourceId: string, correlationId?: string): Promise<ClaimDecision> {
    const stream = idempotencyStream(accountId, ref.keyHash);
    const freed = await this.freedHolder(stream);
    let decision: ClaimDecision | undefined;
    await this.execute(stream, accountId, correlationId, (state, now) => {
      decision = decideClaim(state, { requestHash: ref.requestHash, resourceId, now, holderLetsGo: state.status === 'held' && state.resourceId === freed });
      const claimedAt = now.toISOString();
      return decision.kind === 'claim' ? [this.options.events.claimed({ accountId, keyHash: ref.keyHash, requestHash: ref.requestHash, resourceId, claimedAt })] : [];
    });
    return decision as ClaimDecision;
  }

  /**
   * The holder that lets its key go, read before deciding (the decider is pure; a holder that
   * changed meanwhile is kept). No read at all for a service whose holders never let go early.
   */
  private async freedHolder(stream: string): Promise<string | null> {
    const { holderLetsGo } = this.options;
    if (!holderLetsGo) return null;
    const { state } = await loadAggregate(this.options.store, stream, this.fold);
    return state.status === 'held' && (await holderLetsGo(state.resourceId)) ? state.resourceId : null;
  }

  /** Frees the key after the request it was claimed for failed (its client got an error). */
  async release(accountId: string, keyHash: string, resourceId: string, code: string, correlationId?: string): Promise<void> {
    await this.execute(idempotencyStream(accountId, keyHash), accountId, correlationId, (state, now) =>
      decideRelease(state, resourceId) ? [this.options.events.released({ resourceId, code, releasedAt: now.toISOString() })] : [],
    );
  }

  /** Whether the key is still bound to `resourceId` (it may have been released or taken over). */
  async holds(accountId: string, keyHash: string, resourceId: string): Promise<boolean> {
    const { state } = await loadAggregate(this.options.store, idempotencyStream(accountId, keyHash), this.fold);
    return state.status === 'held' && state.resourceId === resourceId;
  }

  private async execute(stream: string, accountId: string, correlationId: string | undefined, decide: (state: KeyState, now: Date) => E[]): Promise<void> {
    const now = this.options.clock();
    await executeCommand(this.options.store, stream, this.fold, (state) => decide(state, now), eventMetadata({ accountId, correlationId, now }));
  }
}
