import { messageStream } from '@switchboard/contracts';
import type { EventStore } from '@switchboard/eventstore';
import { AggregateCache, eventMetadata, executeCommand, loadAggregate, traceparentOf } from '@switchboard/service-kit';
import type { AggregateFold, CommandResult, ProjectionRunner } from '@switchboard/service-kit';
import type { MessageFacts } from '../contents/message-facts.js';
import type { MessageFact } from '../contents/opened-content.js';
import type { MessageCommand } from '../message/commands.js';
import { decide } from '../message/decide.js';
import { messageFold } from '../message/fold.js';
import type { Message } from '../message/state.js';
import type { Clock } from './clock.js';

const VISIBLE_WITHIN_MS = 5_000;
/**
 * Messages whose folded state stays in memory: a message's commands (accepted, sent, delivered,
 * read) come within seconds of each other, so a few thousand cover every send in flight.
 */
const CACHED_MESSAGES = 4_096;

/** The commands as callers give them: `now` is filled in from the clock. */
type TimedCommand = MessageCommand extends infer C ? (C extends { now: Date } ? Omit<C, 'now'> : never) : never;

/**
 * The `message-msg_…` streams: load a message, or run one command through the handler loop
 * (read, fold, decide, append with the expected revision, retry on conflict). A command does not
 * wait for the read models: a read waits for them instead (`caughtUp`), so a lookup right after a
 * reply still sees the reply, and a command is answered even while a projection is stalled.
 * Folded messages are cached with their revision: a send's later commands append without
 * re-reading the stream, and a load reads only what another writer appended since. Contents are
 * sealed as they are stored and opened as they are read (MessageFacts).
 */
export class MessageStore {
  private cache = new AggregateCache<Message>(CACHED_MESSAGES);
  readonly fold: AggregateFold<Message, MessageFact>;
  /** Store position of the latest append made here (-1 for none). */
  private lastAppended = -1n;

  constructor(
    private readonly store: EventStore,
    private readonly clock: Clock,
    private readonly runner: ProjectionRunner | undefined,
    readonly facts: MessageFacts,
  ) {
    this.fold = messageFold(facts);
  }

  async load(messageId: string): Promise<Message> {
    return (await loadAggregate(this.store, messageStream(messageId), this.fold, this.cache)).state;
  }

  /** Drops every folded message kept in memory (an account's contents were erased: none may stay readable here). */
  forgetFolded(): void {
    this.cache = new AggregateCache<Message>(CACHED_MESSAGES);
  }

  /**
   * The `traceparent` stored with the message's last `type` event (its first event without one):
   * the request a receipt or a recovery links its span to.
   */
  async traceparent(messageId: string, type?: string): Promise<string | undefined> {
    return traceparentOf(await this.store.readStream(messageStream(messageId)), type);
  }

  async execute(
    messageId: string,
    accountId: string,
    command: TimedCommand,
    correlationId?: string,
    /** What this command acts on (`eventRef` of an event, a receipt); the request itself when absent. */
    causationId?: string,
  ): Promise<CommandResult<Message, MessageFact>> {
    const now = this.clock.now();
    const full = { ...command, now } as MessageCommand;
    const metadata = eventMetadata({ accountId, correlationId, causationId, now });
    // The content is sealed as it is stored: the account's key must be at hand (loaded once, then kept).
    if (command.type === 'AcceptMessage') await this.facts.keys.sealingKey(accountId);
    // An accepted message's id was minted for it: its stream is new unless this is a retry.
    const options = { cache: this.cache, fresh: command.type === 'AcceptMessage' };
    const result = await executeCommand(this.store, messageStream(messageId), this.fold, (state) => decide(full, state), metadata, options);
    if (result.position !== undefined && result.position > this.lastAppended) this.lastAppended = result.position;
    return result;
  }

  /**
   * Waits until the read models show every append made here, for at most a few seconds: what a
   * read answers after a reply agrees with that reply (a sent message never reads as pending).
   * A projection that stopped is /readyz's to report; the read answers with what it has.
   */
  caughtUp(): Promise<void> | undefined {
    if (!this.runner || this.runner.hasApplied(this.lastAppended)) return undefined;
    return visible(this.runner, this.lastAppended).catch(() => undefined);
  }
}

/**
 * Waits for the read model to show an append, for at most a few seconds: a stalled projection
 * must not stall reads (/readyz reports the stall).
 */
async function visible(runner: ProjectionRunner, position: bigint): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bounded = new Promise<void>((resolve) => (timer = setTimeout(resolve, VISIBLE_WITHIN_MS)));
  await Promise.race([runner.waitForPosition(position), bounded]);
  clearTimeout(timer);
}
