import { DEFAULT_CONNECTION_CONFIG, fetchLatestWaWebVersion } from '@whiskeysockets/baileys';
import type { WAVersion } from '@whiskeysockets/baileys';
import type { ResolvedNetwork } from '../network.js';

/** Looks up the WhatsApp Web version the network expects now; undefined when it cannot tell. */
export type LatestWaWebVersion = () => Promise<WAVersion | undefined>;

/** The version bundled with Baileys: what a socket announces when no lookup is possible. */
export const BUNDLED_WA_WEB_VERSION: WAVersion = DEFAULT_CONNECTION_CONFIG.version;

const LOOKUP_TIMEOUT_MS = 5_000;

/** Baileys' lookup of the client revision web.whatsapp.com serves now (its service worker), bounded. */
export const lookUpWaWebVersion: LatestWaWebVersion = async () => {
  const { version, isLatest } = await fetchLatestWaWebVersion({ signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) });
  return isLatest ? version : undefined;
};

/**
 * The lookup a network gets unless one is given: the internet is asked only for the real network
 * at its real address, never for the emulator nor for a test's loopback stand-in (`url` set).
 */
export function defaultVersionLookup(network: ResolvedNetwork): LatestWaWebVersion | undefined {
  return network.kind === 'whatsapp' && network.waWebSocketUrl === undefined ? lookUpWaWebVersion : undefined;
}

/**
 * The WhatsApp Web version the sockets of a process announce: looked up once (where there is a
 * lookup), else Baileys' bundled one; looked up again when the network refuses the version as
 * outdated. Sessions refused together share one lookup, and one refused with a version already
 * replaced gets the newer one without asking again.
 */
export class WaWebVersions {
  #current: Promise<WAVersion> | undefined;
  #refreshing: Promise<WAVersion> | undefined;

  constructor(
    private readonly lookUp: LatestWaWebVersion | undefined,
    private readonly bundled: WAVersion = BUNDLED_WA_WEB_VERSION,
  ) {}

  /** The version to announce now; never rejects. */
  current(): Promise<WAVersion> {
    this.#current ??= this.#lookUpOrBundled();
    return this.#current;
  }

  /** The version to try after the network refused `refused` (the same one when nothing newer is known). */
  async refreshed(refused: WAVersion): Promise<WAVersion> {
    if (this.#refreshing) return this.#refreshing;
    const current = await this.current();
    if (this.#refreshing) return this.#refreshing;
    if (current.join('.') !== refused.join('.')) return current;
    const refreshing = this.#lookUpOrBundled();
    this.#refreshing = refreshing;
    this.#current = refreshing;
    void refreshing.then(() => {
      if (this.#refreshing === refreshing) this.#refreshing = undefined;
    });
    return refreshing;
  }

  async #lookUpOrBundled(): Promise<WAVersion> {
    try {
      return (await this.lookUp?.()) ?? this.bundled;
    } catch {
      return this.bundled;
    }
  }
}
