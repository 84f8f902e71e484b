/**
 * Which sessions replica holds a session's chat connection. Exactly one at a time: the embedded
 * process holds them all (`SoleOwnership`); replicas sharing sessions over NATS hold leases
 * (`LeasedOwnership`).
 */
export interface SessionOwnership {
  /** This replica's id (names its own subjects). */
  readonly replicaId: string;
  /** Whether a session this replica failed to resume is tried again (its record stays its own). */
  readonly retriesAdoption: boolean;
  /** Takes up the sessions this replica should hold (after a start: queues them to resume). */
  start(): Promise<void>;
  /**
   * Where a session's request is handled now: `self`, another replica's id, or `unknown` while it
   * has no live owner (its owner died, or it is being handed over): the caller waits.
   */
  ownerOf(sessionId: string): 'self' | 'unknown' | (string & {});
  /** Where a new session goes: `self`, the id of the replica that should hold it, or `full` (every replica at its cap). */
  placeNew(): 'self' | 'full' | (string & {});
  /** Records this replica as a new session's owner, then runs `open` (the claim is undone if it fails). */
  claimNew<T>(sessionId: string, accountId: string, open: () => Promise<T>): Promise<T>;
  /** The session ended for good: it has no owner any more. */
  release(sessionId: string): Promise<void>;
  /** SIGTERM: hands every session over to the other replicas, then leaves. */
  drain(): Promise<void>;
  stop(): Promise<void>;
}

/** The sessions this process can resume or end: the connection registry's side of ownership. */
export interface LocalSessions {
  /**
   * Queues the session to resume here (from the shared credentials; the manager's bounded resume
   * queue opens it in its turn), or ends it if it cannot be resumed.
   */
  adopt(sessionId: string, accountId: string): Promise<void>;
  /** Stops its connection here WITHOUT logging out (another replica resumes it). */
  letGo(sessionId: string): Promise<void>;
  /** Fencing: closes its connection here at once (no wait for acks), without logging out. */
  cutOff(sessionId: string): Promise<void>;
  /** Ids of the sessions with a connection here, or queued to resume here. */
  held(): string[];
  /** Whether the session's connection here is linked and online (one being paired is not moved). */
  online(sessionId: string): boolean;
  /** Sessions the read model says are live (connected or pending), to find ones nobody owns. */
  live(): { sessionId: string; accountId: string }[];
  /** Whether the read model says this session is live (connected or pending). */
  isLive(sessionId: string): boolean;
  /** Queues every live session to resume here (the only replica). */
  restoreAll(): Promise<void>;
}

/** The embedded mode: one process holds every session. */
export class SoleOwnership implements SessionOwnership {
  readonly replicaId = 'embedded';
  readonly retriesAdoption = false;

  constructor(private readonly local: LocalSessions) {}

  start(): Promise<void> {
    return this.local.restoreAll();
  }

  ownerOf(): 'self' {
    return 'self';
  }

  placeNew(): 'self' {
    return 'self';
  }

  claimNew<T>(_sessionId: string, _accountId: string, open: () => Promise<T>): Promise<T> {
    return open();
  }

  async release(): Promise<void> {}

  async drain(): Promise<void> {}

  async stop(): Promise<void> {}
}
