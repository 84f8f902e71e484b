import type { Logger } from '@switchboard/telemetry';
import { BoundedMap } from '../chat/bounded-map.js';
import { MESSAGED_REFRESH_MS } from './messaged-contacts.js';
import type { MessagedContacts } from './messaged-contacts.js';
import { earliestSendAt, isPacingOff, released, settled, waitsForPrevious } from './pacing-rules.js';
import type { NextMessage, PacingSettings, PacingState } from './pacing-rules.js';

/** A message's place in its session's send order; `settle` once it reached the network (`sent`) or failed. */
export interface PacedTurn {
  settle(sent: boolean): void;
}

export interface PacerDeps {
  settingsFor(accountId: string): Promise<PacingSettings>;
  contacts: MessagedContacts;
  logger?: Logger;
  random?: () => number;
  now?: () => number;
}

/** A gap counts from the previous message's acknowledgement, but a send that never settles must not stall the line. */
const SETTLE_WAIT_CAP_MS = 30_000;
/** A session with nothing queued and nothing sent for this long drops its line (reloaded from the record when needed). */
const IDLE_LINE_MS = 10 * 60_000;

const UNPACED: PacedTurn = { settle: () => undefined };

/** One session's send order: its pacing state, its queue, and the numbers it is known to have messaged. */
class SessionLine {
  state: PacingState = {};
  loaded = false;
  /** Resolves when the message before the last one queued was let out: messages leave in order. */
  tail: Promise<unknown> = Promise.resolve();
  /** Resolves when the message let out last settled. */
  previous: Promise<void> = Promise.resolve();
  waiting = 0;
  touchedAt = 0;
  /** Number → when it was last recorded as messaged (epoch ms). */
  readonly known = new BoundedMap<string, number>(5_000);
}

/**
 * Safe pacing, the I/O half (the rules are `pacing-rules.ts`): each session's messages leave one
 * after the other, each at the earliest time its plan allows. It runs where the session's
 * connection is held, the one replica every send of the session goes through, so nothing can
 * send around it. The numbers a session messaged are kept in `MessagedContacts`, so a restart or
 * a move to another replica does not make known contacts new; the last send's time is kept in
 * memory only (a move takes longer than any gap).
 */
export class Pacer {
  private readonly lines = new Map<string, SessionLine>();
  private readonly random: () => number;
  private readonly now: () => number;
  private sweptAt = 0;

  constructor(private readonly deps: PacerDeps) {
    this.random = deps.random ?? Math.random;
    this.now = deps.now ?? Date.now;
  }

  /** Resolves when the message to `to` may go out; the caller settles the turn once the send ended. */
  async turn(accountId: string, sessionId: string, to: string): Promise<PacedTurn> {
    const settings = await this.deps.settingsFor(accountId);
    if (isPacingOff(settings)) return UNPACED;
    this.sweep();
    const line = this.line(sessionId);
    line.waiting++;
    const turn = line.tail.then(() => this.letOut(line, accountId, sessionId, to, settings));
    line.tail = turn.catch(() => undefined);
    try {
      return await turn;
    } finally {
      line.waiting--;
      line.touchedAt = this.now();
    }
  }

  /**
   * A contact wrote to the session: it is not new (replying to someone who wrote first is no
   * unsolicited first message). Recorded like a sent message, while the account's plan paces.
   */
  async heardFrom(accountId: string, sessionId: string, phone: string): Promise<void> {
    if (isPacingOff(await this.deps.settingsFor(accountId))) return;
    const line = this.line(sessionId);
    line.touchedAt = this.now();
    const now = this.now();
    const seenAt = await this.seen(line, accountId, sessionId, phone);
    if (seenAt === undefined || now - seenAt > MESSAGED_REFRESH_MS) this.remember(line, accountId, sessionId, phone, now, false);
  }

  private async letOut(line: SessionLine, accountId: string, sessionId: string, to: string, settings: PacingSettings): Promise<PacedTurn> {
    await this.load(line, accountId, sessionId);
    const seenAt = await this.seen(line, accountId, sessionId, to);
    const next: NextMessage = { to, isNewContact: seenAt === undefined };
    if (waitsForPrevious(line.state, next, settings)) await capped(line.previous, SETTLE_WAIT_CAP_MS);
    const waitMs = earliestSendAt(line.state, next, settings, this.random) - this.now();
    // Unref'd: a queue of paced messages does not keep a stopping process alive (messaging asks again).
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs).unref());
    const leftAt = this.now();
    line.state = released(line.state, next, leftAt);
    if (next.isNewContact) line.known.set(to, leftAt);
    let done!: () => void;
    line.previous = new Promise<void>((resolve) => (done = resolve));
    return {
      settle: (sent) => {
        line.state = settled(line.state, next, this.now());
        done();
        if (!sent && next.isNewContact) line.known.delete(to);
        if (sent && (seenAt === undefined || leftAt - seenAt > MESSAGED_REFRESH_MS)) this.remember(line, accountId, sessionId, to, leftAt, next.isNewContact);
      },
    };
  }

  /** The last first message to a new contact, from the record, once per line. */
  private async load(line: SessionLine, accountId: string, sessionId: string): Promise<void> {
    if (line.loaded) return;
    line.loaded = true;
    const at = await this.deps.contacts.lastNewContactAt(accountId, sessionId).catch((error: unknown) => {
      this.deps.logger?.warn({ err: error, sessionId }, 'pacing record not readable; first messages to new contacts paced from now');
      return this.now();
    });
    if (at !== undefined && (line.state.lastNewContactAt ?? 0) < at) line.state = { ...line.state, lastNewContactAt: at };
  }

  /** When the session last messaged `to`, if known; an unreadable record counts it as new (the slower rate). */
  private async seen(line: SessionLine, accountId: string, sessionId: string, to: string): Promise<number | undefined> {
    const cached = line.known.get(to);
    if (cached !== undefined) return cached;
    const seenAt = await this.deps.contacts.seen(accountId, sessionId, to).catch((error: unknown) => {
      this.deps.logger?.warn({ err: error, sessionId }, 'messaged-contacts record not readable; contact paced as new');
      return undefined;
    });
    if (seenAt !== undefined) line.known.set(to, seenAt);
    return seenAt;
  }

  private remember(line: SessionLine, accountId: string, sessionId: string, to: string, at: number, newContact: boolean): void {
    line.known.set(to, at);
    void this.deps.contacts.remember(accountId, sessionId, to, at, newContact).catch((error: unknown) => {
      this.deps.logger?.warn({ err: error, sessionId }, 'messaged contact not recorded; after a restart it may be paced as new once more');
    });
  }

  private line(sessionId: string): SessionLine {
    let line = this.lines.get(sessionId);
    if (!line) {
      line = new SessionLine();
      this.lines.set(sessionId, line);
    }
    return line;
  }

  private sweep(): void {
    const now = this.now();
    if (now - this.sweptAt < 60_000) return;
    this.sweptAt = now;
    for (const [sessionId, line] of this.lines) if (line.waiting === 0 && now - line.touchedAt > IDLE_LINE_MS) this.lines.delete(sessionId);
  }
}

function capped(work: Promise<void>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  return Promise.race([work, cap]).finally(() => clearTimeout(timer));
}
