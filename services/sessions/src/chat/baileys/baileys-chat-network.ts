import type { ChatDriver, DriverOptions } from '../driver.js';
import { resolveNetwork, type ChatNetworkConfig } from '../network.js';
import { SessionCredentials } from '../credentials/session-credentials.js';
import type { CredentialsStore } from '../credentials/credentials-store.js';
import { BaileysChatDriver } from './baileys-chat-driver.js';
import { installWorkingCurveVerify } from './baileys-curve-verify.js';
import { KeepaliveClock } from './keepalive.js';
import { installSecretKeyObjects } from './secret-key-objects.js';
import { DEFAULT_RECONNECT_POLICY, type ReconnectPolicy } from './reconnect-policy.js';
import { createSharedBaileysCaches } from './shared-cache.js';
import { silenceLibsignalConsole } from './silence-libsignal.js';
import type { SocketSettings } from './socket-settings.js';
import { defaultVersionLookup, WaWebVersions, type LatestWaWebVersion } from './wa-web-version.js';

export interface BaileysChatNetworkOptions {
  network: ChatNetworkConfig;
  credentials: CredentialsStore;
  /** Told when a session's creds could not be saved (retried meanwhile); default: nobody. */
  onCredentialsSaveFailed?: (sessionId: string, error: unknown) => void;
  /** How long a send waits for the network's acknowledgement (`SWITCHBOARD_SEND_DEADLINE_MS`). */
  ackTimeoutMs?: number;
  /** Lifetime of each pairing code; unset = the network's usual 60 s then 20 s. */
  qrTimeoutMs?: number;
  reconnect?: Partial<ReconnectPolicy>;
  /**
   * How often each socket pings the network; a socket that went silent is found within twice
   * this and reconnected. Default 20 s (found within 42 s); tests shorten it.
   */
  keepAliveIntervalMs?: number;
  /** How long each step of a connection's handshake may go unanswered. Default 20 s; tests shorten it. */
  connectTimeoutMs?: number;
  /**
   * Looks up the WhatsApp Web version the network expects now, at the first connect and again
   * when the network refuses one as outdated. Default: web.whatsapp.com's current revision for
   * the real network at its real address, none otherwise (Baileys' bundled version); tests give one.
   */
  latestWaWebVersion?: LatestWaWebVersion;
}

/**
 * Everything the drivers of one process share: the resolved network, Baileys' caches and the
 * credentials store. Create one per process, then one driver per session.
 */
export class BaileysChatNetwork {
  private constructor(
    private readonly options: BaileysChatNetworkOptions,
    private readonly settings: SocketSettings,
    private readonly versions: WaWebVersions,
  ) {}

  static async connect(options: BaileysChatNetworkOptions): Promise<BaileysChatNetwork> {
    const network = await resolveNetwork(options.network);
    silenceLibsignalConsole();
    installWorkingCurveVerify();
    installSecretKeyObjects();
    const settings: SocketSettings = {
      network,
      caches: createSharedBaileysCaches(),
      keepalive: new KeepaliveClock(options.keepAliveIntervalMs, options.connectTimeoutMs),
      ...(options.qrTimeoutMs === undefined ? {} : { qrTimeoutMs: options.qrTimeoutMs }),
    };
    return new BaileysChatNetwork(options, settings, new WaWebVersions(options.latestWaWebVersion ?? defaultVersionLookup(network)));
  }

  createDriver(sessionId: string, options: DriverOptions = {}): ChatDriver {
    return new BaileysChatDriver({
      ...options,
      sessionId,
      credentials: new SessionCredentials(sessionId, this.options.credentials, {
        onSaveFailed: (error) => this.options.onCredentialsSaveFailed?.(sessionId, error),
      }),
      settings: this.settings,
      reconnect: { ...DEFAULT_RECONNECT_POLICY, ...this.options.reconnect },
      ackTimeoutMs: this.options.ackTimeoutMs ?? 10_000,
      versions: this.versions,
    });
  }
}
