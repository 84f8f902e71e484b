import { sessionEventParser, STREAM_CATEGORY } from '@switchboard/contracts';
import type { FeedReply, FeedRequest, SessionStatus } from '@switchboard/contracts';
import type { EventStore, RecordedEvent } from '@switchboard/eventstore';
import { FeedReader, toRawEvent } from '@switchboard/service-kit';
import { qrDataUrl, qrFingerprint } from '../connections/qr.js';
import { statusAfter, toPublicEvent } from './public-events.js';

/** The pairing code this process holds for a session now, if any. */
export type LiveQrLookup = (sessionId: string) => string | undefined;

const parse = (recorded: RecordedEvent) => sessionEventParser.parse(toRawEvent(recorded));

/**
 * `sb.v1.sessions.feed`: the session facts of this service's store as public events. A QR fact
 * becomes `session.qr` only in the process holding that very code (see `toPublicEvent`).
 */
export class SessionFeed {
  /** Status folded so far per stream history the feed holds (streams can be long: activity). */
  private readonly folded = new WeakMap<readonly RecordedEvent[], { length: number; status: SessionStatus | null }>();

  private readonly reader: FeedReader;

  constructor(store: EventStore, private readonly liveQr: LiveQrLookup) {
    this.reader = new FeedReader(store, STREAM_CATEGORY.session, async (recorded, earlier) => {
      const event = parse(recorded);
      const previous = this.statusOf(earlier);
      const fact = { eventId: recorded.id, event, timestamp: recorded.recordedAt.toISOString() };
      if (event.type !== 'QrCodeIssued') return toPublicEvent(fact, previous);
      const code = this.liveQr(event.data.sessionId);
      const held = code !== undefined && qrFingerprint(code) === event.data.fingerprint;
      return toPublicEvent(fact, previous, held ? await qrDataUrl(code) : undefined);
    });
  }

  read(request: FeedRequest): Promise<FeedReply> {
    return this.reader.page(request);
  }

  private statusOf(earlier: readonly RecordedEvent[]): SessionStatus | null {
    const known = this.folded.get(earlier) ?? { length: 0, status: null };
    const status = earlier.slice(known.length).reduce<SessionStatus | null>((s, r) => statusAfter(s, parse(r)), known.status);
    this.folded.set(earlier, { length: earlier.length, status });
    return status;
  }
}
