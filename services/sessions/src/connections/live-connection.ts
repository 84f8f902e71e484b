import type { ChatDriver, ChatDriverEventMap, ConnectedEvent, DisconnectedEvent, InboundEvent, QrEvent, ReceiptEvent } from '../chat/index.js';

/** What the owner of a connection does with the driver's reports. */
export interface ConnectionListener {
  qr(connection: LiveConnection, qr: QrEvent): Promise<void>;
  connected(connection: LiveConnection, event: ConnectedEvent): Promise<void>;
  disconnected(connection: LiveConnection, event: DisconnectedEvent): Promise<void>;
  receipt(connection: LiveConnection, receipt: ReceiptEvent): Promise<void>;
  inbound(connection: LiveConnection, inbound: InboundEvent): Promise<void>;
  failed(connection: LiveConnection, error: unknown): void;
}

/** `pairing`: showing QR codes; `linked`: the device is (or is being re-) connected. */
export type ConnectionPhase = 'pairing' | 'linked';

/**
 * One session's driver in this process, with what only memory may hold: the current pairing
 * code (a secret, never stored) and the order of the driver's reports. Reports are handled one
 * after the other, so `QrCodeIssued` is always decided before the `SessionConnected` it preceded.
 */
export class LiveConnection {
  /** The pairing code the network shows right now; undefined once linked. */
  currentQr: QrEvent | undefined;
  /** Whether the network has the device online right now (false while reconnecting). */
  online = false;
  /** The linked number, once the network confirmed the login. */
  phone: string | undefined;
  private queue: Promise<void> = Promise.resolve();
  private readonly handlers: { [E in keyof ChatDriverEventMap]: (payload: ChatDriverEventMap[E][0]) => void };
  private firstQrWaiters: ((qr: QrEvent) => void)[] = [];

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
        for (const resolve of this.firstQrWaiters.splice(0)) resolve(qr);
        this.serial(() => listener.qr(this, qr), listener);
      },
      connected: (event) => {
        this.online = true;
        this.currentQr = undefined;
        this.phase = 'linked';
        this.serial(() => listener.connected(this, event), listener);
      },
      disconnected: (event) => {
        this.online = false;
        this.serial(() => listener.disconnected(this, event), listener);
      },
      receipt: (receipt) => this.serial(() => listener.receipt(this, receipt), listener),
      inbound: (inbound) => this.serial(() => listener.inbound(this, inbound), listener),
    };
    this.attach();
  }

  /** Resolves with the first pairing code, or rejects after `timeoutMs`. */
  firstQr(timeoutMs: number): Promise<QrEvent> {
    if (this.currentQr) return Promise.resolve(this.currentQr);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no pairing code within ${timeoutMs} ms`)), timeoutMs);
      this.firstQrWaiters.push((qr) => {
        clearTimeout(timer);
        resolve(qr);
      });
    });
  }

  /** Stops listening to the driver: later reports (of a logout we asked for) change nothing. */
  detach(): void {
    for (const [event, handler] of Object.entries(this.handlers)) this.driver.off(event as keyof ChatDriverEventMap, handler as never);
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
