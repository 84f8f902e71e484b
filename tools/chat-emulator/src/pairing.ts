import { randomBytes } from 'node:crypto';
import type { Connection } from './connection.js';
import type { PairingSchedule } from './model.js';
import { SERVER_JID, nowSeconds } from './wire.js';
import type { Node } from './wire.js';

/** Slack for the client's QR timer starting a little after the server issued the refs. */
const SCAN_GRACE_MS = 250;
/** After the last ref expired, give the client this long to give up before the network does. */
const STOP_GRACE_MS = 2_000;

export type RefState = 'valid' | 'expired' | 'unknown';

/** A stanza the network waits for from the client while the phone is linking it. */
export interface AwaitedStanza {
  matches(node: Node): boolean;
  resolve(node: Node): void;
  reject(error: Error): void;
}

/**
 * The companion asked to link by code (`link_code_companion_reg stage=companion_hello`): the number
 * it named, its ephemeral key wrapped with the code it shows, and the ref the network gave it.
 */
export interface LinkCodeRequest {
  phone: string;
  wrappedEphemeral: Buffer;
  ref: string;
}

/**
 * An unpaired client waiting for its QR to be scanned. The network hands out all refs at once in
 * one `pair-device` stanza (as WhatsApp does; Baileys shows them one after another on its own
 * timer) and accepts each ref only during its window: the first for `firstRefMs`, each next for
 * `nextRefMs`. When the last window closes the network stops the registration.
 */
export class Registration {
  readonly refs: string[];
  readonly issuedAt = Date.now();
  /** Set while a phone is completing the pairing: the client's next step. */
  awaiting: AwaitedStanza | undefined;
  /** Set once the client asked to link by code instead of a QR (both stay possible, as on WhatsApp). */
  linkCode: LinkCodeRequest | undefined;
  private readonly stopTimer: NodeJS.Timeout;

  constructor(
    readonly conn: Connection,
    private readonly schedule: PairingSchedule,
    onExpired: (registration: Registration) => void,
  ) {
    this.refs = Array.from({ length: schedule.refCount }, () => `2@${randomBytes(24).toString('base64')}`);
    this.stopTimer = setTimeout(() => onExpired(this), this.windowEnd(schedule.refCount - 1) + STOP_GRACE_MS);
    this.stopTimer.unref();
  }

  pairDeviceNode(): Node {
    return {
      tag: 'iq',
      attrs: { from: SERVER_JID, type: 'set', id: `pair-device-${randomBytes(4).toString('hex')}`, xmlns: 'md', t: nowSeconds() },
      content: [
        {
          tag: 'pair-device',
          attrs: {},
          content: this.refs.map((ref) => ({ tag: 'ref', attrs: {}, content: Buffer.from(ref) })),
        },
      ],
    };
  }

  refState(ref: string, now = Date.now()): RefState {
    const index = this.refs.indexOf(ref);
    if (index < 0) return 'unknown';
    const elapsed = now - this.issuedAt;
    return elapsed < this.windowEnd(index) + SCAN_GRACE_MS ? 'valid' : 'expired';
  }

  dispose(): void {
    clearTimeout(this.stopTimer);
  }

  private windowEnd(index: number): number {
    return this.schedule.firstRefMs + index * this.schedule.nextRefMs;
  }
}

/** The `stream:error` the network ends an expired registration with (Baileys: `DisconnectReason.timedOut`). */
export const registrationTimedOut: Node = { tag: 'stream:error', attrs: { code: '408' } };

/** Pairing done: the client must reconnect and log in (Baileys: `DisconnectReason.restartRequired`). */
export const restartRequired: Node = { tag: 'stream:error', attrs: { code: '515' } };
