import type {
  ChatDriver,
  ChatDriverEventMap,
  ConnectedEvent,
  DisconnectedEvent,
  InboundEvent,
  NetworkFailure,
  PairingCodeEvent,
  QrEvent,
  ReceiptEvent,
} from '../chat/index.js';

/** What the owner of a connection does with the driver's reports. */
export interface ConnectionListener {
  qr(connection: LiveConnection, qr: QrEvent): Promise<void>;
  pairingCode(connection: LiveConnection, code: PairingCodeEvent): Promise<void>;
  connected(connection: LiveConnection, event: ConnectedEvent): Promise<void>;
  disconnected(connection: LiveConnection, event: DisconnectedEvent): Promise<void>;
  receipt(connection: LiveConnection, receipt: ReceiptEvent): Promise<void>;
  inbound(connection: LiveConnection, inbound: InboundEvent): Promise<void>;
  failed(connection: LiveConnection, error: unknown): void;
}

/**
 * No first pairing code (a QR, or the code to type on the phone): the network could not be
 * reached (`failure` says why), or nothing came in time.
 */
export class NoPairingCodeError extends Error {
  override readonly name = 'NoPairingCodeError';
  constructor(readonly failure: NetworkFailure | undefined, timeoutMs?: number) {
    super(failure ? failure.detail : `no pairing code within ${timeoutMs} ms`);
  }
}

/** Failures that waiting out the reconnects would not mend: answer at once instead. */
const LASTING_CAUSES: ReadonlySet<NetworkFailure['cause']> = new Set(['dns', 'tls', 'rejected']);

/** `pairing`: showing QR codes (or a code to type); `linked`: the device is (or is being re-) connected. */
export type ConnectionPhase = 'pairing' | 'linked';

/**
 * One session's driver in this process, with what only memory may hold: the current pairing
 * code (a secret, never stored) and the order of the driver's reports. Reports are handled one
 * after the other, so `QrCodeIssued` is always decided before the `SessionConnected` it preceded.
 */
export class LiveConnection {
  /** The pairing code the network shows right now; undefined once linked. */
  currentQr: QrEvent | undefined;
  /** Pairing by code too: the code to type on the phone (in memory only, like QR codes); undefined once linked. */
  pairingCode: PairingCodeEvent | undefined;
  /** The session pairs by code too: its first pairing answer is the code, which follows the first QR. */
  pairsByCode = false;
  /** Whether the network has the device online right now (false while reconnecting). */
  online = false;
  /** The linked number, once the network confirmed the login. */
  phone: string | undefined;
  /** Why the last attempt could not reach the network; cleared once it answers (a QR, a login). */
  lastFailure: NetworkFailure | undefined;
  /** The failure last logged, so a series of retries against the same wall logs it once. */
  loggedFailure: string | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly handlers: { [E in keyof ChatDriverEventMap]: (payload: ChatDriverEventMap[E][0]) => void };
  private firstQrWaiters: { resolve(first: QrEvent | PairingCodeEvent): void; reject(error: Error): void }[] = [];

  constructor(
    readonly sessionId: string,
    readonly accountId: string,
    readonly driver: ChatDriver,
    public phase: ConnectionPhase,
    listener: ConnectionListener,
  ) {
    this.handlers = {
      qr: (qr) => {
        this.currentQr = qr;
        this.lastFailure = this.loggedFailure = undefined;
        if (!this.pairsByCode) for (const waiter of this.firstQrWaiters.splice(0)) waiter.resolve(qr);
        this.serial(() => listener.qr(this, qr), listener);
      },
      pairingCode: (code) => {
        this.pairingCode = code;
        this.lastFailure = this.loggedFailure = undefined;
        for (const waiter of this.firstQrWaiters.splice(0)) waiter.resolve(code);
        this.serial(() => listener.pairingCode(this, code), listener);
      },
      connected: (event) => {
        this.online = true;
        this.lastFailure = this.loggedFailure = undefined;
        this.currentQr = this.pairingCode = undefined;
        this.phase = 'linked';
        this.serial(() => listener.connected(this, event), listener);
      },
      disconnected: (event) => {
        this.online = false;
        if (event.failure) this.lastFailure = event.failure;
        if (event.failure && LASTING_CAUSES.has(event.failure.cause)) this.rejectFirstQr(new NoPairingCodeError(event.failure));
        this.serial(() => listener.disconnected(this, event), listener);
      },
      receipt: (receipt) => this.serial(() => listener.receipt(this, receipt), listener),
      inbound: (inbound) => this.serial(() => listener.inbound(this, inbound), listener),
    };
    this.attach();
  }

  /**
   * Resolves with the first pairing code: the first QR, or (`pairsByCode`) the code to type.
   * Rejects with NoPairingCodeError at once when the network cannot be reached for a lasting
   * reason (a name that does not resolve, TLS, a refusal), else after `timeoutMs` with the last
   * failure seen (a refused or reset TCP connection is retried).
   */
  firstPairing(timeoutMs: number): Promise<QrEvent | PairingCodeEvent> {
    const first = this.pairsByCode ? this.pairingCode : this.currentQr;
    if (first) return Promise.resolve(first);
    return new Promise((resolve, reject) => {
      const waiter = {
        resolve: (pairing: QrEvent | PairingCodeEvent) => {
          clearTimeout(timer);
          resolve(pairing);
        },
        reject: (error: Error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        this.firstQrWaiters = this.firstQrWaiters.filter((w) => w !== waiter);
        reject(new NoPairingCodeError(this.lastFailure, timeoutMs));
      }, timeoutMs);
      this.firstQrWaiters.push(waiter);
    });
  }

  private rejectFirstQr(error: Error): void {
    for (const waiter of this.firstQrWaiters.splice(0)) waiter.reject(error);
  }

  /**
   * Stops listening to the driver: later reports (of a logout we asked for, of the stop) change
   * nothing. But for received messages: the driver may still be telling those it took before (a
   * media download under way; its stop waits for them), and the network never sends them again.
   */
  detach(): void {
    for (const [event, handler] of Object.entries(this.handlers)) {
      if (event !== 'inbound') this.driver.off(event as keyof ChatDriverEventMap, handler as never);
    }
  }

  /** Resolves once every report received so far has been handled. */
  idle(): Promise<void> {
    return this.queue;
  }

  private attach(): void {
    for (const [event, handler] of Object.entries(this.handlers)) this.driver.on(event as keyof ChatDriverEventMap, handler as never);
  }

  private serial(work: () => Promise<void>, listener: ConnectionListener): void {
    this.queue = this.queue.then(work).catch((error: unknown) => listener.failed(this, error));
  }
}
