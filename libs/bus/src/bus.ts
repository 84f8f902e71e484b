/**
 * The one messaging API the services use. Two transports implement it with the same
 * semantics: `NatsBus` (distributed, core NATS) and `InProcessBus` (embedded, one process).
 *
 * Subjects: `sb.v1.<service>.<verb>` for request/reply, `sb.v1.evt.<category>.<Event>` for
 * published facts. Payloads are JSON. Replies travel in a `ReplyEnvelope`, so a handler's
 * failure reaches the caller as a `RemoteError` with a stable code.
 */

/** Header names with a meaning on the bus. Values are strings; names are lowercase. */
export const BusHeader = {
  traceparent: 'traceparent',
  tracestate: 'tracestate',
  correlationId: 'correlation-id',
  causationId: 'causation-id',
  accountId: 'account-id',
} as const;

/** Message headers: lowercase names, one string value each. */
export type BusHeaders = Record<string, string>;

/**
 * What a handler receives. From another process (`local` false) `data` is the decoded JSON
 * payload, not yet validated: the handler parses it with its contract. From this very process
 * (`local`: the embedded bus) it is the sender's own object, already typed by the contract at
 * compile time: trusted as it is (parsed once, at the process's edge), and never to be mutated.
 */
export interface BusMessage<T = unknown> {
  subject: string;
  data: T;
  headers: BusHeaders;
  local?: boolean;
}

/** What `request` resolves to: the handler's return value and the reply headers (`local` as for BusMessage). */
export interface BusReply<T = unknown> {
  data: T;
  headers: BusHeaders;
  local?: boolean;
}

export interface RequestOptions {
  /** Deadline for the whole round trip; `DeadlineExceededError` after it. */
  timeoutMs: number;
  headers?: BusHeaders;
}

export interface PublishOptions {
  headers?: BusHeaders;
}

export interface SubscribeOptions {
  /** Queue group: each message goes to ONE member of the group (replicas share load). */
  queue?: string;
}

/**
 * Handles one message. For a request, the resolved value is the reply (`undefined` becomes
 * `null`) and a thrown error becomes a `RemoteError` at the caller; for a published message
 * the value is ignored and a thrown error is logged.
 */
export type BusHandler<T = unknown> = (message: BusMessage<T>) => unknown;

/**
 * A read a service answers for callers in its own process without the bus (see `Bus.directAnswer`):
 * the request as the caller typed it, the reply as the service made it, neither copied nor parsed.
 */
export type DirectAnswer = (request: unknown) => unknown;

export interface BusSubscription {
  readonly subject: string;
  /** Stops delivery to this handler; messages already being handled finish. */
  unsubscribe(): Promise<void>;
}

export interface BusHealth {
  transport: 'nats' | 'in-process';
  connected: boolean;
  /** The NATS server currently connected to, when there is one. */
  server?: string;
}

export interface Bus {
  /**
   * Sends `data` to one responder and waits for its reply.
   * @throws NoResponderError nobody subscribes to `subject` (fails fast, not at the deadline)
   * @throws DeadlineExceededError no reply within `timeoutMs`
   * @throws RemoteError the handler failed; carries its `code`, `message` and `details`
   * @throws BusUnavailableError the transport is disconnected or closed
   */
  request<TReply = unknown>(subject: string, data: unknown, options: RequestOptions): Promise<BusReply<TReply>>;
  /**
   * Fire-and-forget to every subscriber (one per queue group).
   * @throws BusUnavailableError the transport is disconnected or closed
   */
  publish(subject: string, data: unknown, options?: PublishOptions): Promise<void>;
  /**
   * Registers `handler`; resolves once the subscription is live (a request sent after it
   * resolves reaches it). NATS wildcards `*` and `>` work on both transports.
   */
  subscribe<T = unknown>(subject: string, handler: BusHandler<T>, options?: SubscribeOptions): Promise<BusSubscription>;
  /**
   * Whether a message published on `subject` now could reach anyone: false only when the
   * transport knows nobody listens (the in-process bus knows every subscriber; over NATS a
   * listener may be in any process, so always true). A publisher skips work nobody would receive.
   */
  mayBeHeard(subject: string): boolean;
  /**
   * Where the service answering `subject` shares this process (the in-process bus) and has
   * offered a direct answer for it (`answerDirectly`): that answer, which `callService` calls
   * instead of a round trip. Undefined over NATS, where the answering process may be any.
   */
  directAnswer?(subject: string): DirectAnswer | undefined;
  /**
   * Offers `answer` to callers in this process for `subject`, beside the subscription that
   * answers it over the bus (the in-process bus only; a no-op elsewhere). Returns its removal.
   */
  answerDirectly?(subject: string, answer: DirectAnswer): () => void;
  isConnected(): boolean;
  health(): BusHealth;
  /** Stops all subscriptions and the connection; later calls fail with `BusUnavailableError`. */
  close(): Promise<void>;
}
