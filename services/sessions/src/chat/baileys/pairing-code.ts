import { getBinaryNodeChild, getBinaryNodeChildren } from '@whiskeysockets/baileys';
import type { AuthenticationCreds, BinaryNode, WASocket } from '@whiskeysockets/baileys';
import type { PairingCodeEvent, PhoneNumber } from '../driver.js';

/** How long the QR refs of a registration last: the first, then each next one (Baileys' own timer). */
export interface QrLifetimes {
  firstMs: number;
  nextMs: number;
}

/** How long the network may take to acknowledge the request for a code. */
const ANSWER_TIMEOUT_MS = 10_000;

/** WhatsApp shows the 8 characters in two groups: `ABCD-EFGH` (whatsmeow `PairPhone` formats it so too). */
export const shownPairingCode = (code: string): string => `${code.slice(0, 4)}-${code.slice(4)}`;

/**
 * Pairing by code instead of a QR ("link with phone number"), for one driver. The network opens
 * a registration as for a QR (its `pair-device` refs, which Baileys shows as QR codes on its own
 * timer); once it is open, Baileys' `requestPairingCode` sends `link_code_companion_reg
 * stage=companion_hello` for the number and returns the code, which the person types on that
 * phone. The code works for as long as the registration lasts (whatsmeow pair-code.go: the
 * socket closes when the QR refs run out, "a 160-second time limit"), so it expires with the last
 * ref, and the session then times out as an unscanned QR does.
 */
export class CodePairing {
  /** Baileys' code (8 characters, no hyphen), kept to ask for the same one on a later socket. */
  #code: string | undefined;
  /** Refs of the newest registration, from its `pair-device` (6 on the real network). */
  #refs = 0;
  readonly #asked = new WeakSet<WASocket>();

  constructor(
    readonly phone: PhoneNumber,
    private readonly lifetimes: QrLifetimes,
  ) {}

  /**
   * Before each socket opens. `requestPairingCode` set `creds.me` to the number before the phone
   * entered the code; a socket lost before the pairing finished would log in with those
   * half-made credentials (and be refused as logged out): it registers again instead.
   */
  prepare(creds: AuthenticationCreds): void {
    if (!creds.account && creds.me) delete creds.me;
  }

  /** Counts the refs the network hands the socket (heard before Baileys shows the first as a QR). */
  watch(socket: WASocket): void {
    socket.ws.on('CB:iq,type:set,pair-device', (node: BinaryNode) => {
      this.#refs = getBinaryNodeChildren(getBinaryNodeChild(node, 'pair-device'), 'ref').length;
    });
  }

  /**
   * Baileys showed a QR: the socket's registration is open. Asks the network for a code on it,
   * once per socket; a later socket (a reconnect while pairing) asks for the same code, so what
   * the person was shown keeps working. Answers the event to tell, the first time only, once the
   * network acknowledged the request (Baileys does not wait for it: a code told before would
   * not be known yet to the phone it is typed on).
   */
  async onQr(socket: WASocket): Promise<PairingCodeEvent | undefined> {
    if (this.#asked.has(socket)) return undefined;
    this.#asked.add(socket);
    const first = this.#code === undefined;
    const askedAt = Date.now();
    const answered = networkAnswer(socket);
    try {
      this.#code = await socket.requestPairingCode(this.phone, this.#code);
    } catch (error) {
      answered.catch(() => undefined);
      throw error;
    }
    await answered;
    if (!first) return undefined;
    const lifetimeMs = this.lifetimes.firstMs + Math.max(0, this.#refs - 1) * this.lifetimes.nextMs;
    return { code: shownPairingCode(this.#code), expiresAt: new Date(askedAt + lifetimeMs) };
  }
}

/**
 * The network's answer to `companion_hello`: an iq result carrying the request's ref
 * (`link_code_companion_reg/link_code_pairing_ref`, whatsmeow `PairPhone`); rejects after
 * ANSWER_TIMEOUT_MS without one.
 */
function networkAnswer(socket: WASocket): Promise<void> {
  const event = 'CB:iq,type:result,link_code_companion_reg';
  return new Promise((resolve, reject) => {
    const answered = (): void => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      socket.ws.off(event, answered);
      reject(new Error('the chat network did not acknowledge the pairing code request'));
    }, ANSWER_TIMEOUT_MS);
    timer.unref();
    socket.ws.once(event, answered);
  });
}
