import { accountStream, messageStream, sessionStream } from '@switchboard/contracts';
import { categoryOf } from '@switchboard/eventstore';
import type { EventStore, RecordedEvent } from '@switchboard/eventstore';
import type { ServiceName } from '@switchboard/service-kit';
import type { ProgressBar } from '../progress.js';
import { logPages, storeOf, streamPages } from './audited-stores.js';
import type { AuditedStore } from './audited-stores.js';
import {
  ReplyWindow, messageStreamsWhere, naming, ofAccount, openedInSession, openedWithContact, sentMessageOf, usageStreamOf,
} from './fact-query.js';
import type { FactQuery } from './fact-query.js';

/** A recorded event and the store it was read from (`all`: a KurrentDB log every service shares). */
export interface StoredFact {
  service: ServiceName | 'all';
  event: RecordedEvent;
}

/** The facts one store gives for a query, page by page, in its log order (position, or revision within one stream). */
export type FactSource = AsyncIterable<StoredFact[]>;

/** An id the stores do not know: said in one line, exit code 1. */
export class NothingRecordedError extends Error {
  override readonly name = 'NothingRecordedError';
}

/**
 * Where each query's facts are (streams are named `<category>-<id>`, see contracts/events/streams):
 * - message: its stream `message-msg_…` (messaging), the contact's replies from a scan of the
 *   message category from its acceptance on (until the session's next message to them), and its
 *   daily unit from its usage stream `usage-<account>-<day>` (quota);
 * - session: its stream `session-ses_…` (sessions), its plan slot from `account-<account>` (quota),
 *   and every message through it from a scan of the message category (messaging);
 * - account: a scan of every store's whole log, picking the facts whose metadata (or data) names it;
 * - contact: a scan of the message category, picking the streams of messages to or from the number.
 * Scans read pages of 1,000 events: memory stays flat whatever the store's size (a session or
 * contact query remembers one stream name per message picked).
 */
export async function factSources(stores: readonly AuditedStore[], query: FactQuery, progress: ScanProgress): Promise<FactSource[]> {
  switch (query.by) {
    case 'message':
      return messageSources(stores, query.messageId, progress);
    case 'session':
      return sessionSources(stores, query.sessionId, progress);
    case 'account': {
      // Read first: an id no store knows is said so, not answered with an empty history.
      await streamOf(stores, 'quota', accountStream(query.accountId), 'account');
      return [...readable(stores).map((s) => scan(s, {}, (event) => ofAccount(event, query.accountId), progress))];
    }
    case 'contact':
      return [scan(storeWith(stores, 'messaging'), { category: 'message' }, messageStreamsWhere(openedWithContact(query.phone)), progress)];
  }
}

async function messageSources(stores: readonly AuditedStore[], messageId: string, progress: ScanProgress): Promise<FactSource[]> {
  const { store, events } = await streamOf(stores, 'messaging', messageStream(messageId), 'message');
  const sent = sentMessageOf(events);
  // A received message is its one fact: the conversation after it is its session's history.
  if (sent === undefined) return [listed(store, events)];
  const window = new ReplyWindow(sent);
  const facts = scan(store, { category: 'message', from: events[0]!.position }, (event) => window.pick(event), progress, () => window.finished);
  const usage = usageStreamOf(events[0]!);
  if (usage === undefined) return [facts];
  const quota = storeWith(stores, 'quota');
  return [facts, listed(quota, streamPages(quota.store, usage), naming('messageId', messageId))];
}

async function sessionSources(stores: readonly AuditedStore[], sessionId: string, progress: ScanProgress): Promise<FactSource[]> {
  const session = await streamOf(stores, 'sessions', sessionStream(sessionId), 'session');
  const accountId = (session.events[0]!.data as { accountId?: unknown }).accountId;
  const sources = [session.source, scan(storeWith(stores, 'messaging'), { category: 'message' }, messageStreamsWhere(openedInSession(sessionId)), progress)];
  if (typeof accountId !== 'string') return sources;
  const quota = storeWith(stores, 'quota');
  return [...sources, listed(quota, streamPages(quota.store, accountStream(accountId)), naming('sessionId', sessionId))];
}

type Readable = AuditedStore & { store: EventStore };

function readable(stores: readonly AuditedStore[]): Readable[] {
  return stores.filter((s): s is Readable => s.store !== undefined);
}

/** The store holding `service`'s streams; one that does not exist yet holds nothing. */
function storeWith(stores: readonly AuditedStore[], service: ServiceName): Readable {
  const found = storeOf(stores, service);
  if (found?.store === undefined) throw new NothingRecordedError(`the ${service} store has nothing recorded yet (${found?.where ?? 'not configured'})`);
  return found as Readable;
}

/** A whole stream read first (it names what else to read), and it as a source. */
async function streamOf(stores: readonly AuditedStore[], service: ServiceName, stream: string, what: string) {
  const store = storeWith(stores, service);
  const events: RecordedEvent[] = [];
  for await (const page of streamPages(store.store, stream)) events.push(...page);
  if (events.length === 0) throw new NothingRecordedError(`no ${what} ${stream.slice(categoryOf(stream).length + 1)} in the ${service} store (${store.where})`);
  return { store, events, source: listed(store, events) };
}

/** Events already read, or pages of them, as facts of `store`, optionally only those `pick` takes. */
async function* listed(store: Readable, events: RecordedEvent[] | AsyncIterable<RecordedEvent[]>, pick: (event: RecordedEvent) => boolean = () => true): FactSource {
  for await (const page of Array.isArray(events) ? [events] : events) yield factsOf(store, page, pick);
}

function factsOf(store: Readable, page: readonly RecordedEvent[], pick: (event: RecordedEvent) => boolean): StoredFact[] {
  const facts: StoredFact[] = [];
  for (const event of page) if (pick(event)) facts.push({ service: store.service, event });
  return facts;
}

/** A scan of `store`'s log (or one category, from a position on): the facts `pick` takes, until `done`. */
async function* scan(
  store: Readable,
  from: { category?: string; from?: bigint },
  pick: (event: RecordedEvent) => boolean,
  progress: ScanProgress,
  done: () => boolean = () => false,
): FactSource {
  const head = await store.store.lastPosition(from.category === undefined ? {} : { category: from.category });
  const key = `${store.service} ${from.category ?? ''}`;
  for await (const page of logPages(store.store, from)) {
    progress.read(key, page.length, head === undefined ? undefined : Number(page.at(-1)!.position) / Number(head));
    yield factsOf(store, page, pick);
    if (done()) return;
  }
  progress.read(key, 0, 1);
}

/** What the scans of one query have read, for one progress line (the mean share done of its scans). */
export class ScanProgress {
  #events = 0;
  readonly #shares = new Map<string, number | undefined>();

  constructor(private readonly bar: ProgressBar | undefined) {}

  read(scan: string, events: number, share: number | undefined): void {
    this.#events += events;
    this.#shares.set(scan, share);
    const shares = [...this.#shares.values()];
    this.bar?.update(this.#events, shares.includes(undefined) ? undefined : shares.reduce<number>((sum, s) => sum + s!, 0) / shares.length);
  }

  get events(): number {
    return this.#events;
  }

  end(): void {
    this.bar?.end();
  }
}
