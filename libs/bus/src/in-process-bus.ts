import type { Bus, BusHandler, BusHealth, BusHeaders, BusReply, BusSubscription, DirectAnswer, PublishOptions, RequestOptions, SubscribeOptions } from './bus.js';
import { openEnvelope, serializeEnvelope } from './envelope.js';
import { BusUnavailableError, DeadlineExceededError, NoResponderError } from './errors.js';
import { defaultBusLogger } from './logger.js';
import type { BusLogger } from './logger.js';
import { subjectMatches } from './subject.js';
import { handleInbound, withProducerSpan } from './tracing.js';
import type { HandledMessage } from './tracing.js';

interface LocalSubscription {
  pattern: string;
  queue: string | undefined;
  handler: BusHandler;
}

/** Who receives a subject: plain subscribers, and the members of each queue group. */
interface Route {
  plain: LocalSubscription[];
  groups: [queue: string, members: LocalSubscription[]][];
}

/** Subjects are a fixed set in practice; the bound only guards against a caller minting them. */
const MAX_CACHED_ROUTES = 1_024;

export interface InProcessBusOptions {
  logger?: BusLogger;
}

/**
 * The embedded transport: NATS semantics inside one process. Payloads are handed over as they
 * are, not serialised (messages and replies are `local`: typed by their contract at compile
 * time, parsed only where they cross a process boundary, and never mutated by the receiver);
 * a handler's failure goes through the same error envelope as over NATS. Delivery is
 * asynchronous; a queue group hands each message to one member, round-robin; a request with
 * several responders takes the first reply.
 */
export class InProcessBus implements Bus {
  private readonly subscriptions = new Set<LocalSubscription>();
  /** Next member index per queue group. */
  private readonly queueCursors = new Map<string, number>();
  /** Routes by subject, so a request does not match every pattern; reset when subscriptions change. */
  private readonly routes = new Map<string, Route>();
  /** Direct answers by subject (`answerDirectly`). */
  private readonly directAnswers = new Map<string, DirectAnswer>();
  private readonly logger: BusLogger;
  private closed = false;

  constructor(options: InProcessBusOptions = {}) {
    this.logger = options.logger ?? defaultBusLogger();
  }

  async request<TReply = unknown>(subject: string, data: unknown, options: RequestOptions): Promise<BusReply<TReply>> {
    this.assertOpen();
    return withProducerSpan('in_process', 'send', subject, options.headers, async (headers) => {
      const targets = this.route(subject);
      if (targets.length === 0) throw new NoResponderError(subject);
      // One responder (a queue group: every service's requests) needs no race.
      const replies = targets.length === 1 ? this.deliver(targets[0]!, subject, data ?? null, headers) : Promise.race(targets.map((target) => this.deliver(target, subject, data ?? null, headers)));
      const reply = await withDeadline(replies, subject, options.timeoutMs);
      // A failure is carried as over NATS: only what `toRemoteErrorBody` lets out of the handler.
      const replied = reply.envelope.ok ? reply.envelope.data : openEnvelope(subject, JSON.parse(serializeEnvelope(reply.envelope)));
      return { data: replied as TReply, headers: reply.headers, local: true };
    });
  }

  async publish(subject: string, data: unknown, options: PublishOptions = {}): Promise<void> {
    this.assertOpen();
    await withProducerSpan('in_process', 'publish', subject, options.headers, async (headers) => {
      for (const target of this.route(subject)) {
        void this.deliver(target, subject, data ?? null, headers).then(({ envelope }) => {
          if (!envelope.ok) this.logger.error({ subject, error: envelope.error }, 'event handler failed');
        });
      }
    });
  }

  async subscribe<T = unknown>(subject: string, handler: BusHandler<T>, options: SubscribeOptions = {}): Promise<BusSubscription> {
    this.assertOpen();
    const subscription: LocalSubscription = { pattern: subject, queue: options.queue, handler: handler as BusHandler };
    this.subscriptions.add(subscription);
    this.routes.clear();
    return {
      subject,
      unsubscribe: async () => {
        this.subscriptions.delete(subscription);
        this.routes.clear();
      },
    };
  }

  /** Every service answering here shares this process, so a direct answer is always its own. */
  directAnswer(subject: string): DirectAnswer | undefined {
    return this.closed ? undefined : this.directAnswers.get(subject);
  }

  answerDirectly(subject: string, answer: DirectAnswer): () => void {
    this.assertOpen();
    this.directAnswers.set(subject, answer);
    return () => {
      if (this.directAnswers.get(subject) === answer) this.directAnswers.delete(subject);
    };
  }

  isConnected(): boolean {
    return !this.closed;
  }

  health(): BusHealth {
    return { transport: 'in-process', connected: !this.closed };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscriptions.clear();
    this.directAnswers.clear();
    this.routes.clear();
  }

  /** Whether anyone in this process subscribes to `subject` now (the bus knows every subscriber). */
  mayBeHeard(subject: string): boolean {
    const route = this.routes.get(subject) ?? this.cacheRoute(subject);
    return route.plain.length > 0 || route.groups.length > 0;
  }

  /** Every plain subscriber, plus one member of each queue group, as NATS does. */
  private route(subject: string): LocalSubscription[] {
    const route = this.routes.get(subject) ?? this.cacheRoute(subject);
    const targets = [...route.plain];
    for (const [queue, members] of route.groups) {
      const cursor = this.queueCursors.get(queue) ?? 0;
      this.queueCursors.set(queue, cursor + 1);
      targets.push(members[cursor % members.length] as LocalSubscription);
    }
    return targets;
  }

  private cacheRoute(subject: string): Route {
    const plain: LocalSubscription[] = [];
    const groups = new Map<string, LocalSubscription[]>();
    for (const subscription of this.subscriptions) {
      if (!subjectMatches(subscription.pattern, subject)) continue;
      if (subscription.queue === undefined) plain.push(subscription);
      else groups.set(subscription.queue, [...(groups.get(subscription.queue) ?? []), subscription]);
    }
    const route = { plain, groups: [...groups] };
    if (this.routes.size >= MAX_CACHED_ROUTES) this.routes.clear();
    this.routes.set(subject, route);
    return route;
  }

  private async deliver(target: LocalSubscription, subject: string, data: unknown, headers: BusHeaders): Promise<HandledMessage> {
    // Yield first, as a network would: the handler never runs inside the caller's stack.
    await Promise.resolve();
    const message = { subject, data, headers: { ...headers }, local: true };
    return handleInbound('in_process', message, target.handler, target.queue);
  }

  private assertOpen(): void {
    if (this.closed) throw new BusUnavailableError('in-process bus is closed');
  }
}

/** `work`'s result, or `DeadlineExceededError` once `timeoutMs` has passed. */
async function withDeadline<T>(work: Promise<T>, subject: string, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceededError(subject, timeoutMs)), timeoutMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
