import { toServiceCallError } from '@switchboard/bus';
import type { Bus, BusMessage, BusSubscription } from '@switchboard/bus';
import { ApiError, notSentError } from '@switchboard/contracts';
import type { Logger } from '@switchboard/telemetry';
import type { SessionOwnership } from './ownership.js';

/** The requests that must reach the replica holding the session's connection. */
export type RoutedVerb = 'create' | 'qr' | 'delete' | 'send' | 'contact';

/** A replica's own subjects: requests another replica forwarded to it, handled here whatever the directory says. */
export const replicaSubject = (replicaId: string, verb: RoutedVerb): string => `sb.v1.sessions.replica.${replicaId}.${verb}`;

/**
 * How long a QR read (under the gateway's 5 s call deadline) and a delete (under its 30 s one)
 * wait for a session without a live owner, or for its connection to come up: a delete logs the
 * device out through that connection.
 */
const OWNER_WAIT_MS = { qr: 3_000, contact: 3_000, delete: 20_000 } as const;
const RECHECK_MS = 50;
/** A create forwarded to the replica that places it waits for the network's first QR code there. */
const CREATE_FORWARD_MS = 30_000;
/** How many times a request was forwarded, and how long its sender still waits (ms). */
const HOPS_HEADER = 'sessions-hops';
const WAIT_HEADER = 'sessions-wait-ms';
const MAX_HOPS = 2;

export interface SessionRouterDeps {
  bus: Bus;
  ownership: SessionOwnership;
  /** Whether this process holds the session's connection and the network has it online. */
  online(sessionId: string): boolean;
  /** Whether this process holds a connection of the session (online or reconnecting). */
  holds(sessionId: string): boolean;
  /** Whether the session is connected on record (a connection is expected, maybe being resumed). */
  connectedOnRecord(sessionId: string): boolean;
  /** A request here waits for the session's connection: its resume, if still queued, goes first. */
  hurry(sessionId: string): void;
  /** How long a send waits for its session's connection (the send deadline). */
  sendWaitMs: number;
  logger: Logger;
}

/**
 * Takes each session request to the replica that holds the session: handled here when this
 * replica owns it, forwarded to the owner's own subject otherwise. While the session has no live
 * owner (a failover, a handover) or its connection is being resumed, the request waits (a send up
 * to the send deadline) instead of failing.
 */
export class SessionRouter {
  /** Requests being routed: a stopping replica lets them finish before its directory closes. */
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly deps: SessionRouterDeps) {}

  /** Resolves once every request routed so far is answered (each is bounded by its wait). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Whether a request for a session this replica owns waits for its connection here: a send or a
   * contact lookup until it is online, a delete (a logout goes through it) until it exists, while
   * the session is connected on record; a QR read never.
   */
  private waitsForConnection(verb: Exclude<RoutedVerb, 'create'>, sessionId: string): boolean {
    if (verb === 'qr' || !this.deps.connectedOnRecord(sessionId)) return false;
    return verb === 'delete' ? !this.deps.holds(sessionId) : !this.deps.online(sessionId);
  }

  private track<T>(routed: Promise<T>): Promise<T> {
    this.inFlight.add(routed);
    const forget = () => this.inFlight.delete(routed);
    routed.then(forget, forget);
    return routed;
  }

  /** Subscribes this replica's own subjects; `handle` answers a forwarded request here. */
  listen(handle: (verb: RoutedVerb, message: BusMessage) => unknown): Promise<BusSubscription[]> {
    const { bus, ownership } = this.deps;
    const verbs: RoutedVerb[] = ['create', 'qr', 'delete', 'send', 'contact'];
    return Promise.all(verbs.map((verb) => bus.subscribe(replicaSubject(ownership.replicaId, verb), (message) => handle(verb, message))));
  }

  /** A new session: created on the least-loaded replica. */
  create<T>(message: BusMessage, here: () => Promise<T>): Promise<T> {
    return this.track(this.placed(message, here));
  }

  private async placed<T>(message: BusMessage, here: () => Promise<T>): Promise<T> {
    const target = this.deps.ownership.placeNew();
    if (target === 'full') throw new ApiError('SERVICE_UNAVAILABLE', 'Every sessions replica holds as many sessions as it may (SWITCHBOARD_SESSIONS_MAX_PER_REPLICA); retry later.');
    if (target === 'self') return here();
    return this.forward<T>(target, 'create', message, CREATE_FORWARD_MS).catch((error: unknown) => {
      throw toServiceCallError(error, replicaSubject(target, 'create')) ?? error;
    });
  }

  /**
   * A request for one session, from the queue group or forwarded by another replica: handled here
   * when this replica holds the session, else forwarded to the owner (at most `MAX_HOPS` times, so
   * two replicas whose views disagree for a moment cannot pass it back and forth). It waits while
   * the session has no live owner or its connection is being resumed here, up to what is left of
   * the caller's wait (a forwarded request carries it).
   */
  session<T>(verb: Exclude<RoutedVerb, 'create'>, sessionId: string, message: BusMessage, here: () => Promise<T>): Promise<T> {
    return this.track(this.routed(verb, sessionId, message, here));
  }

  private async routed<T>(verb: Exclude<RoutedVerb, 'create'>, sessionId: string, message: BusMessage, here: () => Promise<T>): Promise<T> {
    const hops = Number(message.headers[HOPS_HEADER] ?? 0);
    const defaultWaitMs = verb === 'send' ? this.deps.sendWaitMs : OWNER_WAIT_MS[verb];
    const waitMs = Math.min(Number(message.headers[WAIT_HEADER] ?? defaultWaitMs), defaultWaitMs);
    const deadline = performance.now() + waitMs;
    for (;;) {
      const owner = this.deps.ownership.ownerOf(sessionId);
      const leftMs = deadline - performance.now();
      const late = leftMs <= 0;
      if (owner === 'self' && (late || !this.waitsForConnection(verb, sessionId))) return here();
      if (owner === 'self') this.deps.hurry(sessionId);
      if (owner !== 'self' && owner !== 'unknown' && hops < MAX_HOPS) {
        const headers = { ...message.headers, [HOPS_HEADER]: String(hops + 1), [WAIT_HEADER]: String(Math.max(0, Math.round(leftMs))) };
        const reply = await this.forward<T>(owner, verb, { ...message, headers }, Math.max(0, leftMs) + 10_000).catch((error: unknown) => {
          // The owner left between the lookup and the request: look again (or, late, answer below).
          if ((error as { name?: unknown }).name === 'NoResponderError') return NO_RESPONDER;
          // The owner's answer as the caller would have had it from the owner itself (code, message, details).
          throw toServiceCallError(error, replicaSubject(owner, verb)) ?? error;
        });
        if (reply !== NO_RESPONDER) return reply as T;
      }
      if (late) {
        // Still held by another live replica (forwarded as often as allowed): never acted on here.
        if (owner !== 'self' && owner !== 'unknown') throw movingError(verb);
        // Past the deadline without an owner: answered here (not connected here: a retryable refusal).
        return here();
      }
      await new Promise((resolve) => setTimeout(resolve, RECHECK_MS));
    }
  }

  /**
   * The request as it came (the owner parses it at its own edge), with its headers (trace,
   * correlation, account); its deadline outlasts the caller's, so the caller decides when to give up.
   */
  private async forward<T>(replicaId: string, verb: RoutedVerb, message: Pick<BusMessage, 'data' | 'headers'>, timeoutMs: number): Promise<T> {
    const reply = await this.deps.bus.request<T>(replicaSubject(replicaId, verb), message.data, { timeoutMs, headers: message.headers });
    return reply.data;
  }
}

const NO_RESPONDER = Symbol('no responder');

/**
 * A request given up on while its session moves between replicas: nothing was done with it. A send
 * says so in its own terms (not written to the network), so messaging tries it again under the
 * same id instead of failing a message it already answered 202 for.
 */
function movingError(verb: Exclude<RoutedVerb, 'create'>): ApiError {
  const message = 'The session is moving between sessions replicas; retry shortly.';
  return verb === 'send' ? notSentError(message) : new ApiError('SERVICE_UNAVAILABLE', message);
}
