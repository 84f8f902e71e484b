import { connect, errors as natsErrors } from '@nats-io/transport-node';
import type { ConnectionOptions, Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Bus, BusHandler, BusHealth, BusReply, BusSubscription, PublishOptions, RequestOptions, SubscribeOptions } from './bus.js';
import { decodeJson, encodeJson, failureEnvelope, openEnvelope, serializeEnvelope } from './envelope.js';
import { BusUnavailableError, ConnectionLostError, DeadlineExceededError, NoResponderError } from './errors.js';
import { defaultBusLogger } from './logger.js';
import type { BusLogger } from './logger.js';
import { fromNatsHeaders, toNatsHeaders } from './nats-headers.js';
import { handleInbound, withProducerSpan } from './tracing.js';

export interface NatsBusOptions {
  /** `nats://host:port` URLs; a comma-separated string is split (`SWITCHBOARD_NATS_URL`). */
  servers: string | string[];
  /** Connection name shown by the server's monitoring (`connz`): the service name. */
  name?: string;
  /** Bound on the first connect; past it `BusUnavailableError`. Default 2000 ms. */
  connectTimeoutMs?: number;
  /** Pause between reconnect attempts after a connection is lost. Default 250 ms. */
  reconnectWaitMs?: number;
  /** How long `close()` waits for running handlers to reply. Default 5000 ms. */
  closeGraceMs?: number;
  logger?: BusLogger;
}

const textEncoder = new TextEncoder();

/** Core NATS request/reply and publish/subscribe with queue groups; reconnects forever. */
export class NatsBus implements Bus {
  private connected = true;
  private readonly subscriptions = new Set<Subscription>();
  /** Handlers still running, so `close()` can let them reply before the connection goes. */
  private readonly inFlight = new Set<Promise<void>>();
  /** Requests waiting for a reply: a disconnect fails them at once (their replies are lost). */
  private readonly waiting = new Set<() => void>();

  private constructor(
    private readonly connection: NatsConnection,
    private readonly logger: BusLogger,
    private readonly closeGraceMs: number,
  ) {
    void this.followStatus();
  }

  /** Connects or fails fast with `BusUnavailableError` (never waits for a server to appear). */
  static async connect(options: NatsBusOptions): Promise<NatsBus> {
    const timeoutMs = options.connectTimeoutMs ?? 2_000;
    const connectionOptions = natsServiceConnectionOptions(options.servers, options.name);
    const connecting = connect({ ...connectionOptions, timeout: timeoutMs, reconnectTimeWait: options.reconnectWaitMs ?? 250 });
    try {
      const connection = await withConnectBound(connecting, timeoutMs);
      return new NatsBus(connection, options.logger ?? defaultBusLogger(), options.closeGraceMs ?? 5_000);
    } catch (error) {
      throw new BusUnavailableError(`NATS unreachable at ${connectionOptions.servers.join(',')}: ${(error as Error).message}`, { cause: error });
    }
  }

  async request<TReply = unknown>(subject: string, data: unknown, options: RequestOptions): Promise<BusReply<TReply>> {
    this.assertConnected();
    return withProducerSpan('nats', 'send', subject, options.headers, async (headers) => {
      let reply: Msg;
      try {
        const sent = this.connection.request(subject, encodeJson(data), { timeout: options.timeoutMs, headers: toNatsHeaders(headers) });
        reply = await this.failOnDisconnect(sent, subject);
      } catch (error) {
        throw requestFailure(error, subject, options.timeoutMs);
      }
      return { data: openEnvelope(subject, decodeJson(reply.data)) as TReply, headers: fromNatsHeaders(reply.headers) };
    });
  }

  async publish(subject: string, data: unknown, options: PublishOptions = {}): Promise<void> {
    this.assertConnected();
    await withProducerSpan('nats', 'publish', subject, options.headers, async (headers) => {
      this.connection.publish(subject, encodeJson(data), { headers: toNatsHeaders(headers) });
    });
  }

  async subscribe<T = unknown>(subject: string, handler: BusHandler<T>, options: SubscribeOptions = {}): Promise<BusSubscription> {
    this.assertConnected();
    const subscription = this.connection.subscribe(subject, {
      queue: options.queue,
      callback: (error, message) => {
        if (error) this.logger.error({ subject, err: error }, 'subscription failed');
        else this.track(this.handle(message, handler as BusHandler, options.queue));
      },
    });
    // The server has registered the interest once a flush returns: a request sent after this
    // reaches the handler instead of racing into "no responders".
    this.subscriptions.add(subscription);
    await this.connection.flush();
    const unsubscribe = async () => {
      this.subscriptions.delete(subscription);
      // Drained, not dropped: the server routes nothing more here once it has the unsubscribe,
      // and a request already on its way is still handled (a replica stopping loses none); a
      // request sent next gets "no responder" instead of vanishing into a dropped subscription.
      if (this.isConnected()) await subscription.drain().catch(() => subscription.unsubscribe());
      else subscription.unsubscribe();
    };
    return { subject, unsubscribe };
  }

  /** Listeners may be in any process: only the server knows them. */
  mayBeHeard(_subject: string): boolean {
    return true;
  }

  isConnected(): boolean {
    return this.connected && !this.connection.isClosed();
  }

  health(): BusHealth {
    return { transport: 'nats', connected: this.isConnected(), server: this.connection.getServer() };
  }

  /**
   * Graceful when connected: stops taking messages, lets running handlers reply (up to
   * `closeGraceMs`), then drains and closes. A replica shutting down thus answers what it took.
   */
  async close(): Promise<void> {
    if (this.connection.isClosed()) return;
    if (this.isConnected()) {
      await Promise.all([...this.subscriptions].map((subscription) => subscription.drain().catch(() => {})));
      await settleWithin([...this.inFlight], this.closeGraceMs);
      await this.connection.drain().catch(() => this.connection.close());
    } else {
      await this.connection.close();
    }
    this.connected = false;
  }

  /**
   * The reply, or ConnectionLostError when the connection drops first: the client would resend
   * nothing and wait out the whole deadline, though a reply sent meanwhile is gone for good.
   */
  private async failOnDisconnect<T>(reply: Promise<T>, subject: string): Promise<T> {
    let fail: () => void = () => {};
    const lost = new Promise<never>((_, reject) => (fail = () => reject(new ConnectionLostError(subject))));
    this.waiting.add(fail);
    try {
      return await Promise.race([reply, lost]);
    } finally {
      this.waiting.delete(fail);
      reply.catch(() => {});
    }
  }

  private track(work: Promise<void>): void {
    this.inFlight.add(work);
    const done = () => this.inFlight.delete(work);
    work.then(done, done);
  }

  private async handle(message: Msg, handler: BusHandler, queue: string | undefined): Promise<void> {
    const headers = fromNatsHeaders(message.headers);
    let data: unknown;
    try {
      data = decodeJson(message.data);
    } catch {
      const malformed = failureEnvelope({ code: 'MALFORMED_PAYLOAD', message: 'payload is not JSON' });
      this.reply(message, serializeEnvelope(malformed), {});
      return;
    }
    const handled = await handleInbound('nats', { subject: message.subject, data, headers }, handler, queue);
    if (message.reply) this.reply(message, serializeEnvelope(handled.envelope), handled.headers);
    else if (!handled.envelope.ok) this.logger.error({ subject: message.subject, error: handled.envelope.error }, 'event handler failed');
  }

  private reply(message: Msg, envelope: string, headers: Record<string, string>): void {
    if (!message.reply) return;
    try {
      message.respond(textEncoder.encode(envelope), { headers: toNatsHeaders(headers) });
    } catch (error) {
      // The connection went away while the handler ran; the caller sees its deadline pass.
      this.logger.warn({ subject: message.subject, err: error }, 'reply not sent');
    }
  }

  private async followStatus(): Promise<void> {
    for await (const status of this.connection.status()) {
      if (status.type === 'disconnect') {
        this.connected = false;
        this.logger.warn({ server: status.server, requestsFailed: this.waiting.size }, 'NATS disconnected');
        for (const fail of [...this.waiting]) fail();
      } else if (status.type === 'reconnect') {
        this.connected = true;
        this.logger.info({ server: status.server }, 'NATS reconnected');
      } else if (status.type === 'close') {
        this.connected = false;
      }
    }
  }

  private assertConnected(): void {
    if (!this.isConnected()) throw new BusUnavailableError('NATS connection is down');
  }
}

/** `SWITCHBOARD_NATS_URL` style lists: comma- or space-separated URLs. */
export function parseServers(servers: string | string[]): string[] {
  const list = Array.isArray(servers) ? servers : servers.split(/[\s,]+/);
  return list.map((server) => server.trim()).filter(Boolean);
}

/**
 * `nats://user:password@host:4222` as the NATS client takes it: the servers without their user
 * info, and the user and password (percent-decoded) as options. nats.js 3 ignores credentials in a
 * server URL, so a deployment that gives each service its own NATS user (deploy/k8s) needs this.
 * Every URL of a list must name the same user, or none.
 */
export function natsConnectOptions(servers: string | string[]): { servers: string[]; user?: string; pass?: string } {
  const users = new Set<string>();
  let pass: string | undefined;
  const plain = parseServers(servers).map((server) => {
    const url = URL.canParse(server) ? new URL(server) : undefined;
    if (!url?.username) return server;
    users.add(decodeURIComponent(url.username));
    pass = url.password === '' ? undefined : decodeURIComponent(url.password);
    url.username = '';
    url.password = '';
    return url.toString().replace(/\/$/, '');
  });
  if (users.size > 1) throw new Error('SWITCHBOARD_NATS_URL names more than one NATS user');
  const [user] = users;
  return { servers: plain, ...(user ? { user, ...(pass === undefined ? {} : { pass }) } : {}) };
}

/**
 * How every long-lived NATS connection of a service is made (the bus's, the KV buckets', the blob
 * store's, the data keys'): credentials out of the URL, reconnecting for as long as the process
 * lives, and without async traces. With them nats.js builds two errors with stack traces
 * (RequestError, TimeoutError) for every request and every JetStream publish or KV put, just in
 * case it fails: about a fifth of the CPU at 64 bus requests in flight (bus bench). For the
 * sessions' KV puts and outbox publishes a profile showed them, but bench:send's CPU per send did
 * not move measurably. Our errors carry the subject, which is what a failed request needs.
 */
export function natsServiceConnectionOptions(servers: string | string[], name: string | undefined): ConnectionOptions & { servers: string[] } {
  return {
    ...natsConnectOptions(servers),
    ...(name === undefined ? {} : { name }),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: false,
    noAsyncTraces: true,
  };
}

/** Waits for `work` to settle, but no longer than `timeoutMs`. */
async function settleWithin(work: Promise<unknown>[], timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
  await Promise.race([Promise.allSettled(work), bound]);
  clearTimeout(timer);
}

/** The NATS client's own timeout covers the handshake; this bounds anything else that hangs. */
async function withConnectBound(connecting: Promise<NatsConnection>, timeoutMs: number): Promise<NatsConnection> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([connecting, bound]);
  } catch (error) {
    // A connection that completes after we gave up must not linger.
    connecting.then((late) => late.close(), () => {});
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

/** The NATS client's request failure as the bus error it means. */
function requestFailure(error: unknown, subject: string, timeoutMs: number): unknown {
  if (error instanceof ConnectionLostError) return error;
  for (let cause = error; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof natsErrors.NoRespondersError) return new NoResponderError(subject);
    if (cause instanceof natsErrors.TimeoutError) return new DeadlineExceededError(subject, timeoutMs);
    if (cause instanceof natsErrors.ClosedConnectionError) return new BusUnavailableError('NATS connection is closed', { cause: error });
  }
  if (error instanceof natsErrors.RequestError) return new BusUnavailableError(`NATS request failed: ${error.message}`, { cause: error });
  return error;
}
