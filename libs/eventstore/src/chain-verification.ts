import type { RecordedEvent } from './event-store.js';
import { GENESIS_HASH, eventHash } from './hash-chain.js';

/**
 * How a stream's chain was broken:
 * - altered: an event's stored hash is not the hash of what it says now (or its links are gone);
 * - removed: a revision is missing, or an event links to a hash the event before it does not have;
 * - inserted: an event sits where it does not belong: without it, its neighbours link up;
 * - reordered: events swapped (each links to the other's place), or revisions running backwards.
 */
export type ChainFindingKind = 'altered' | 'removed' | 'inserted' | 'reordered';

export interface ChainFinding {
  stream: string;
  /** The altered, inserted or moved event's revision; for `removed`, the first revision missing. */
  revision: bigint;
  /** The log position of the event found there (for `removed`: of the first event after the gap). */
  position: bigint;
  kind: ChainFindingKind;
  /** What an untouched stream has here (a hash, or `revision N`), and what the store holds. */
  expected: string;
  found: string;
}

export interface StreamChainSummary {
  stream: string;
  events: number;
  /** Events before the stream's chain starts: written before chains existed, not verifiable. */
  unchainedEvents: number;
  /** The revision the chain starts at; undefined for a stream with no chained event (unchained). */
  chainedFrom: bigint | undefined;
  /** The hash the stream's last chained event carries (what an export records as its head). */
  head: string | undefined;
  /** For a slice (`start: 'first-event'`): the `prevHash` its chain starts from. A whole stream starts at genesis. */
  startHash?: string | undefined;
}

export interface StreamChainCheckOptions {
  /**
   * Where the checked events begin: `genesis` (a whole stream, as a store holds it; default) or
   * `first-event` (a slice of a stream, such as an export from a time on): the first chained
   * event's revision and link are taken as given, and `summary().startHash` says what they were,
   * for a comparison with what the slice's manifest recorded.
   */
  start?: 'genesis' | 'first-event';
}

/** An event whose place in the chain is settled: what the next one must link to. */
interface Settled {
  revision: bigint;
  position: bigint;
  hash: string;
  /** The hash its content has now: the same string as `hash` unless the event was altered. */
  computed: string;
}

/** An event as the chain sees it: its links as stored, and its hash recomputed from its content. */
interface Link extends Settled {
  prevHash: string;
}

const none = 'none';
/** What `add` returns for an event that settles nothing wrong (almost all of them): no array per event. */
const noFindings: readonly ChainFinding[] = Object.freeze([]);

/**
 * Checks one stream's chain, fed its events in revision order. It keeps only the last settled
 * event, the hashes of the one before it, and at most one suspect event, whose place is decided
 * when the next one arrives: a few hundred bytes per stream, so a whole store can be checked
 * stream by stream in one pass over its log.
 */
export class StreamChainCheck {
  readonly #stream: string;
  readonly #startsAtFirstEvent: boolean;
  #startHash: string | undefined;
  #events = 0;
  #unchained = 0;
  #lastUnchainedRevision = -1n;
  #chainedFrom: bigint | undefined;
  /** The hashes of the event before `#last` (to spot an event inserted with a forged link). */
  #beforeLastHash: string | undefined;
  #beforeLastComputed: string | undefined;
  /** The last settled event; genesis (just before the chain's first revision) once the chain has begun. */
  #last: Settled | undefined;
  /** An event that does not link to `#last`: inserted, moved, or after a gap; the next one tells. */
  #suspect: Link | undefined;
  /** What the current call found; created only when it finds something (a check runs per stored event). */
  #found: ChainFinding[] | undefined;

  constructor(stream: string, options: StreamChainCheckOptions = {}) {
    this.#stream = stream;
    this.#startsAtFirstEvent = options.start === 'first-event';
  }

  /** Checks the next event; returns what it made certain. */
  add(event: RecordedEvent): readonly ChainFinding[] {
    this.#events += 1;
    const { prevHash, hash } = event.metadata;
    const chained = typeof prevHash === 'string' || typeof hash === 'string';
    if (this.#last === undefined) {
      if (!chained) {
        this.#unchained += 1;
        this.#lastUnchainedRevision = event.revision;
        return noFindings;
      }
      this.#chainedFrom = event.revision;
      const slice = this.#startsAtFirstEvent && typeof prevHash === 'string';
      const start = slice ? prevHash : GENESIS_HASH;
      this.#startHash = start;
      this.#last = { revision: slice ? event.revision - 1n : this.#lastUnchainedRevision, position: -1n, hash: start, computed: start };
    }
    if (this.#followsIntact(event, prevHash, hash)) return noFindings;
    this.#place(this.#linkOf(event, typeof prevHash === 'string' ? prevHash : undefined, typeof hash === 'string' ? hash : undefined));
    return this.#taken();
  }

  /**
   * The common case, settled without a Link or a Settled object per event (a check runs per stored
   * event): nothing is pending, the event links to the last one, has the next revision and its
   * stored hash is its content's. Anything else takes the general path (`#linkOf`, `#place`).
   */
  #followsIntact(event: RecordedEvent, prevHash: unknown, hash: unknown): boolean {
    const last = this.#last!;
    if (this.#suspect !== undefined || typeof prevHash !== 'string' || typeof hash !== 'string') return false;
    if ((prevHash !== last.hash && prevHash !== last.computed) || event.revision !== last.revision + 1n) return false;
    if (eventHash(prevHash, event) !== hash) return false;
    this.#beforeLastHash = last.hash;
    this.#beforeLastComputed = last.computed;
    // `#last` is this check's own object (findings copy its fields): updated in place.
    last.revision = event.revision;
    last.position = event.position;
    last.hash = hash;
    last.computed = hash;
    return true;
  }

  /** The stream has no more events: a suspect left over is an event after a gap. */
  end(): readonly ChainFinding[] {
    const suspect = this.#suspect;
    if (suspect !== undefined) {
      this.#suspect = undefined;
      this.#removedBefore(suspect);
      this.#settle(suspect, false);
    }
    return this.#taken();
  }

  summary(): StreamChainSummary {
    return {
      stream: this.#stream,
      events: this.#events,
      unchainedEvents: this.#unchained,
      chainedFrom: this.#chainedFrom,
      head: (this.#suspect ?? this.#last)?.hash,
      ...(this.#startsAtFirstEvent ? { startHash: this.#startHash } : {}),
    };
  }

  /** The event's link, and `altered` when its stored hash or links do not match its content. */
  #linkOf(event: RecordedEvent, storedPrevHash: string | undefined, storedHash: string | undefined): Link {
    // Links stripped from an event: check its content as if it still linked to its predecessor.
    const prevHash = storedPrevHash ?? (this.#suspect ?? this.#last)!.hash;
    const computed = eventHash(prevHash, event);
    const hash = storedHash ?? computed;
    const link = { revision: event.revision, position: event.position, prevHash, hash, computed: hash === computed ? hash : computed };
    if (storedHash !== computed) this.#report('altered', link, computed, storedHash ?? none);
    else if (storedPrevHash === undefined) this.#report('altered', link, `prevHash ${prevHash}`, none);
    return link;
  }

  #place(next: Link): void {
    const last = this.#last!;
    const suspect = this.#suspect;
    if (suspect === undefined) {
      if (linksTo(next, last)) return this.#settle(next, true);
      if (next.prevHash === this.#beforeLastHash || next.prevHash === this.#beforeLastComputed) {
        // `last` sits between two events that link to each other: without it, `next` follows the one before.
        this.#report('inserted', last, next.prevHash, last.hash);
        this.#last = settled(next);
        return;
      }
      this.#suspect = next;
      return;
    }
    this.#suspect = undefined;
    if (linksTo(next, last) && linksTo(suspect, next)) {
      this.#report('reordered', suspect, next.hash, suspect.hash);
      this.#report('reordered', next, suspect.hash, next.hash);
      this.#beforeLastHash = next.hash;
      this.#beforeLastComputed = next.computed;
      this.#last = { ...settled(suspect), revision: suspect.revision > next.revision ? suspect.revision : next.revision };
      return;
    }
    if (linksTo(next, last)) {
      this.#report('inserted', suspect, next.prevHash, suspect.hash);
      return this.#settle(next, false);
    }
    this.#removedBefore(suspect);
    this.#settle(suspect, false);
    if (linksTo(next, suspect)) this.#settle(next, true);
    else this.#suspect = next;
  }

  /** `link` follows `#last` in the chain; with `checkRevision`, its revision must follow too. */
  #settle(link: Link, checkRevision: boolean): void {
    const expected = this.#last!.revision + 1n;
    if (checkRevision && link.revision !== expected) {
      this.#report(link.revision > expected ? 'removed' : 'reordered', link, `revision ${expected}`, `revision ${link.revision}`, expected);
    }
    this.#beforeLastHash = this.#last!.hash;
    this.#beforeLastComputed = this.#last!.computed;
    this.#last = settled(link);
  }

  /** `suspect` does not link to the last settled event: the chain skips one (or more) there. */
  #removedBefore(suspect: Link): void {
    const last = this.#last!;
    this.#report('removed', suspect, last.hash, suspect.prevHash, last.revision + 1n);
  }

  #report(kind: ChainFindingKind, at: Settled, expected: string, found: string, revision = at.revision): void {
    (this.#found ??= []).push({ stream: this.#stream, revision, position: at.position, kind, expected, found });
  }

  #taken(): readonly ChainFinding[] {
    const found = this.#found;
    this.#found = undefined;
    return found ?? noFindings;
  }
}

/** Whether `next` links to `previous`: to its stored hash, or to the hash its content has now. */
function linksTo(next: Link, previous: Settled): boolean {
  return next.prevHash === previous.hash || next.prevHash === previous.computed;
}

/** What is kept of a settled event: not its prevHash (kept for every stream, this is the check's memory). */
function settled({ revision, position, hash, computed }: Link): Settled {
  return { revision, position, hash, computed };
}

/** One stream's events in revision order, checked: its summary and every finding. */
export function verifyStream(events: readonly RecordedEvent[]): { summary: StreamChainSummary; findings: ChainFinding[] } {
  const check = new StreamChainCheck(events[0]?.stream ?? '');
  const findings = events.flatMap((event) => check.add(event));
  findings.push(...check.end());
  return { summary: check.summary(), findings };
}

/**
 * Checks every stream of a log read in position order (each stream's events then come in revision
 * order): one StreamChainCheck per stream, a few hashes each, so memory grows with the number of
 * streams, not of events.
 */
export class ChainVerifier {
  readonly #streams = new Map<string, StreamChainCheck>();
  readonly #options: StreamChainCheckOptions;

  /** `options` apply to every stream (`start: 'first-event'` for an export, whose streams may be slices). */
  constructor(options: StreamChainCheckOptions = {}) {
    this.#options = options;
  }

  add(event: RecordedEvent): readonly ChainFinding[] {
    let check = this.#streams.get(event.stream);
    if (check === undefined) {
      check = new StreamChainCheck(event.stream, this.#options);
      this.#streams.set(event.stream, check);
    }
    return check.add(event);
  }

  /** The log has no more events: what the streams' last events make certain. */
  end(): ChainFinding[] {
    return [...this.#streams.values()].flatMap((check) => check.end());
  }

  *summaries(): IterableIterator<StreamChainSummary> {
    for (const check of this.#streams.values()) yield check.summary();
  }
}
