import type { SessionEvent, SessionRef } from '@switchboard/contracts';
import type { Logger } from '@switchboard/telemetry';
import type { ChatDriver, ConnectedEvent, DisconnectedEvent, DriverOptions, InboundEvent, PairingCodeEvent, QrEvent, ReceiptEvent, SentContentRecord } from '../chat/index.js';
import type { SessionCommand } from '../session/commands.js';
import type { ActivityRecorder } from './activity.js';
import { LiveConnection } from './live-connection.js';
import type { ConnectionListener, ConnectionPhase } from './live-connection.js';
import { qrFingerprint } from './qr.js';
import type { MessagingForwarder } from './messaging-forwarder.js';
import type { NetworkReachability } from './network-reachability.js';
import type { SessionCommands } from './session-commands.js';
import type { SessionSlots } from './quota-slots.js';

export interface RegistryDeps {
  commands: SessionCommands;
  slots: SessionSlots;
  /** Receipts and received messages to messaging, through the durable outbox. */
  forwarder: MessagingForwarder;
  activity: ActivityRecorder;
  /** What the connections found of the chat network's reachability (`/readyz`'s `chatNetwork`). */
  reachability: NetworkReachability;
  createDriver(sessionId: string, options?: DriverOptions): ChatDriver;
  /** What the session sent, by network id, for resends its recipients ask for (`SentContent`); unset = recent sends only. */
  sentContent?(accountId: string, sessionId: string, networkMessageId: string): Promise<SentContentRecord | undefined>;
  /** Removes the session's stored chat credentials (a closed session never reconnects). */
  wipeCredentials(sessionId: string): void;
  /** How long ending a session waits for the network to confirm its logout before going on. */
  logoutTimeoutMs: number;
  /** A session ended for good: no replica holds it any more. */
  ended(sessionId: string): Promise<void>;
  /** Whether this process is (still) the session's holder: not another replica, not stopping. */
  holdsHere(sessionId: string): boolean;
  /** Whether the session list shows the session connected (a resumed or reconnected one). */
  connectedOnRecord(sessionId: string): boolean;
  /** A contact wrote to the session: for send pacing, replying to it is no first message to a stranger. */
  heardFrom?(accountId: string, sessionId: string, phone: string): void;
  logger: Logger;
}

/**
 * The live connections this process owns, and what each driver report means for its session:
 * the report becomes a command on the session stream, and a session that stops for good loses
 * its connection, its credentials and its plan slot.
 */
export class ConnectionRegistry implements ConnectionListener {
  private readonly live = new Map<string, LiveConnection>();
  /** Sessions `end` is working on: their connection may be gone already, their end not recorded yet. */
  private readonly ending = new Set<string>();

  constructor(private readonly deps: RegistryDeps) {}

  get(sessionId: string): LiveConnection | undefined {
    return this.live.get(sessionId);
  }

  get size(): number {
    return this.live.size;
  }

  /** Ids of the sessions with a connection here. */
  ids(): string[] {
    return [...this.live.keys()];
  }

  /**
   * Whether this process is ending the session right now. Its connection is released before the
   * logout (up to `logoutTimeoutMs`) and the end is recorded after it: in between, the session is
   * neither held here nor ended on record, and must not be taken up again (resumed, or timed out
   * as a stale pending one).
   */
  isEnding(sessionId: string): boolean {
    return this.ending.has(sessionId);
  }

  /** Whether this process has the session in hand: a connection here, or its end under way. */
  inHand(sessionId: string): boolean {
    return this.live.has(sessionId) || this.isEnding(sessionId);
  }

  /** Whether the session's connection is here, linked, and online on the network. */
  online(sessionId: string): boolean {
    const connection = this.live.get(sessionId);
    return connection !== undefined && connection.phase === 'linked' && connection.online;
  }

  open(sessionId: string, accountId: string, phase: ConnectionPhase): LiveConnection {
    const { sentContent, logger } = this.deps;
    const options: DriverOptions = {
      ...(sentContent ? { sentContent: (id: string) => sentContent(accountId, sessionId, id) } : {}),
      onResendFailed: (messageId, error) => logger.warn({ err: error, sessionId, networkMessageId: messageId }, 'a resend the recipient asked for failed; it may ask again'),
    };
    const connection = new LiveConnection(sessionId, accountId, this.deps.createDriver(sessionId, options), phase, this);
    this.live.set(sessionId, connection);
    return connection;
  }

  /** Forgets the connection without touching the network (shutdown, or before a deliberate logout). */
  release(connection: LiveConnection): void {
    connection.detach();
    if (this.live.get(connection.sessionId) === connection) this.live.delete(connection.sessionId);
    this.deps.activity.forget(connection.sessionId);
  }

  /**
   * Ends a session for good, the one way it is done: its connection in this process (if any) is
   * logged out of the network (`logout`, bounded by `logoutTimeoutMs`) or just stopped, its
   * credentials are wiped, `commands(loggedOut)` are recorded, and its plan slot is freed
   * (idempotent at the quota service, so ending twice is harmless). Answers what was recorded.
   */
  async end(ref: SessionRef, commands: (loggedOut: boolean) => SessionCommand[], options: { logout?: boolean } = {}): Promise<SessionEvent[]> {
    const { sessionId, accountId } = ref;
    const connection = this.live.get(sessionId);
    this.ending.add(sessionId);
    try {
      const loggedOut = connection ? await this.disconnect(connection, options.logout === true) : false;
      this.deps.wipeCredentials(sessionId);
      const recorded: SessionEvent[] = [];
      for (const command of commands(loggedOut)) recorded.push(...(await this.deps.commands.execute(sessionId, accountId, command)).events);
      this.deps.logger.info({ sessionId, recorded: recorded.map((e) => e.type) }, 'session ended');
      await this.deps.slots.release(accountId, sessionId);
      await this.deps.ended(sessionId);
      return recorded;
    } finally {
      this.ending.delete(sessionId);
    }
  }

  /** Lets go of the connection: a logout that reached the network (true), or a plain stop. */
  private async disconnect(connection: LiveConnection, logout: boolean): Promise<boolean> {
    const wasOnline = connection.online;
    // Reports already received are recorded first; later ones (of this very logout) change nothing.
    await connection.idle();
    if (!logout) {
      await this.stopHere(connection);
      return false;
    }
    this.release(connection);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), this.deps.logoutTimeoutMs)));
    const done = connection.driver.logout().then(() => true, () => false);
    const reached = await Promise.race([done, timeout]);
    clearTimeout(timer);
    if (!reached) await connection.driver.stop().catch(() => undefined);
    return wasOnline && reached;
  }

  /**
   * Closes the session's connection here WITHOUT logging out (another replica, or the next start,
   * resumes it); reports already received finish first, so the stores do not close under them.
   */
  async letGo(sessionId: string, options: { waitForAcks?: boolean } = {}): Promise<void> {
    const connection = this.live.get(sessionId);
    if (!connection) return;
    await this.stopHere(connection, options);
    await connection.idle();
  }

  /**
   * Closes the connection here, keeping the session as it is; callable from within its own report
   * queue (which `letGo` waits for, and so must not be called from).
   */
  private async stopHere(connection: LiveConnection, options: { waitForAcks?: boolean } = {}): Promise<void> {
    this.release(connection);
    await connection.driver.stop(options).catch((error: unknown) => this.deps.logger.warn({ err: error }, 'driver stop failed'));
  }

  /** Shutdown: lets go of every connection. */
  async stopAll(): Promise<void> {
    await Promise.all(this.ids().map((sessionId) => this.letGo(sessionId)));
  }

  async qr(connection: LiveConnection, qr: QrEvent): Promise<void> {
    this.deps.reachability.reached();
    if (connection.phase === 'linked') {
      // A linked session asked to pair again: its stored credentials are gone or refused.
      return this.endOwn(connection, { type: 'MarkFailed', code: 'credentials_missing', reason: 'stored chat credentials were not accepted; the session must be created again' });
    }
    const command: SessionCommand = { type: 'RecordQrIssued', fingerprint: qrFingerprint(qr.code), expiresAt: qr.expiresAt };
    await this.deps.commands.execute(connection.sessionId, connection.accountId, command);
  }

  /**
   * Pairing by code: the network answered. Nothing is recorded: the code is a pairing secret kept
   * in memory with the connection, and it expires with the registration (then `pairing_timeout`).
   */
  async pairingCode(_connection: LiveConnection, _code: PairingCodeEvent): Promise<void> {
    this.deps.reachability.reached();
  }

  async connected(connection: LiveConnection, event: ConnectedEvent): Promise<void> {
    this.deps.reachability.reached();
    connection.phone = event.phone;
    // Back after a drop or a silent connection: told as `session.status` (connected, `reconnected`).
    if (event.reconnected) await this.deps.commands.execute(connection.sessionId, connection.accountId, { type: 'RecordActivity', activity: 'reconnected' });
    // Resumed or back after a drop: connected on record already, nothing to decide (a stream read saved per resume).
    if (this.deps.connectedOnRecord(connection.sessionId)) return;
    await this.deps.commands.execute(connection.sessionId, connection.accountId, { type: 'MarkConnected', phone: event.phone });
  }

  async disconnected(connection: LiveConnection, event: DisconnectedEvent): Promise<void> {
    const { sessionId } = connection;
    const { failure } = event;
    if (failure) this.deps.reachability.failed(failure);
    if (event.willReconnect) {
      // A transient drop: the driver reconnects with the stored credentials; status stays connected.
      if (!failure) return this.deps.logger.info({ sessionId, reason: event.reason }, 'connection dropped; reconnecting');
      // The same wall on every retry is said once, with what it is.
      if (connection.loggedFailure === failure.detail) return;
      connection.loggedFailure = failure.detail;
      this.deps.logger.warn({ sessionId, cause: failure.cause, host: failure.host }, `cannot reach the chat network: ${failure.detail}; retrying`);
      return;
    }
    if (event.reason === 'pairing_timeout') return this.endOwn(connection, { type: 'MarkTimedOut' });
    if (event.reason === 'version_rejected') return this.endOwn(connection, { type: 'MarkFailed', code: 'version_rejected', reason: failure?.detail ?? 'the chat network refused the client version as outdated' });
    // Replaced because the session is someone else's now (another replica took it over): this
    // connection goes quietly; the session, its credentials and its owner record stay.
    if (event.reason === 'connection_replaced' && !this.deps.holdsHere(sessionId)) return this.stopHere(connection);
    const reason = event.reason === 'connection_replaced' ? 'replaced' : event.reason;
    return this.endOwn(connection, { type: 'MarkDisconnected', reason, ...(failure ? { detail: `${failure.cause}: ${failure.detail}` } : {}) });
  }

  async receipt(connection: LiveConnection, receipt: ReceiptEvent): Promise<void> {
    const { sessionId, accountId } = connection;
    this.deps.activity.touch(sessionId, accountId, 'receipt_received');
    // Not awaited: a slow messaging service must not hold up the session's other reports.
    this.deps.forwarder.receipt({ accountId, sessionId, networkMessageId: receipt.id, receipt: receipt.status, at: receipt.at.toISOString() });
  }

  /** Also from a connection let go of (see `LiveConnection.detach`): its session's activity is no longer ours to write. */
  async inbound(connection: LiveConnection, inbound: InboundEvent): Promise<void> {
    const { sessionId, accountId } = connection;
    if (this.live.get(sessionId) === connection) this.deps.activity.touch(sessionId, accountId, 'message_received');
    this.deps.heardFrom?.(accountId, sessionId, inbound.from);
    const to = connection.phone;
    if (!to) return this.deps.logger.warn({ sessionId }, 'received message before the linked number was known; not recorded');
    // Not awaited, like receipts: its media is fetched, then it is in the outbox until messaging records it.
    void this.deps.forwarder.inbound(accountId, sessionId, to, inbound).then(
      () => connection.driver.inboundRecorded(inbound.id),
      (error: unknown) => this.deps.logger.warn({ err: error, sessionId }, 'received message not forwarded'),
    );
  }

  /**
   * A driver report that ends its session: recorded from within the connection's own report queue,
   * so this one does not wait for that queue (it is running it); it stops, not logs out.
   */
  private async endOwn(connection: LiveConnection, command: SessionCommand): Promise<void> {
    // Ending from now on: while its driver stops, the session is neither held here nor ended on
    // record, and must not be taken up again meanwhile (resumed, adopted).
    this.ending.add(connection.sessionId);
    try {
      await this.stopHere(connection);
      await this.end(connection, () => [command]);
    } finally {
      this.ending.delete(connection.sessionId);
    }
  }

  failed(connection: LiveConnection, error: unknown): void {
    this.deps.logger.error({ err: error, sessionId: connection.sessionId }, 'handling a chat driver report failed');
  }
}
