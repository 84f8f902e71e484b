import { Browsers, DisconnectReason } from '@whiskeysockets/baileys';
import type { AuthenticationState, UserFacingSocketConfig, WAMessageKey, WAVersion, proto } from '@whiskeysockets/baileys';
import { pino } from 'pino';
import type { ResolvedNetwork } from '../network.js';
import { BAILEYS_KEEPALIVE_OFF_MS, type KeepaliveClock } from './keepalive.js';
import type { SharedBaileysCaches } from './shared-cache.js';

/** Baileys logs credentials-adjacent details at debug level; the driver reports through events instead. */
const silentLogger = pino({ level: 'silent' });

export interface SocketSettings {
  network: ResolvedNetwork;
  caches: SharedBaileysCaches;
  /** Lifetime of each pairing code; unset = Baileys' default (60 s for the first, 20 s after). */
  qrTimeoutMs?: number;
  /** Pings every socket of the process and ends the silent ones (`keepalive.ts`). */
  keepalive: KeepaliveClock;
}

/**
 * The socket configuration behind the memory budget (BAILEYS-MEMORY-FINDINGS.md): no recent
 * message cache (its 5-minute timers pin whole key-store transactions, up to ~64 MB per busy
 * socket) with `getMessage` served from the driver's own bounded map, no history sync, not
 * marked online, caches shared across sockets, and a silent logger. Its keepalive is the
 * process's `KeepaliveClock`, not one timer per socket, and so is its connect timeout: Baileys
 * puts its connect timeout on every frame it writes as well, a timer whose set-up captures two
 * stack traces and builds an error each time (about 40 µs per frame, several frames per message
 * sent or receipt taken). Without it a write waits for the socket, which the clock ends when the
 * network stops answering.
 */
export function socketConfig(
  settings: SocketSettings,
  auth: AuthenticationState,
  getMessage: (key: WAMessageKey) => Promise<proto.IMessage | undefined>,
  version: WAVersion,
): UserFacingSocketConfig {
  return {
    ...(settings.network.waWebSocketUrl ? { waWebSocketUrl: settings.network.waWebSocketUrl } : {}),
    ...(settings.network.fetchAgent ? { fetchAgent: settings.network.fetchAgent } : {}),
    ...(settings.network.agent ? { agent: settings.network.agent } : {}),
    ...(settings.qrTimeoutMs === undefined ? {} : { qrTimeout: settings.qrTimeoutMs }),
    auth,
    version,
    keepAliveIntervalMs: BAILEYS_KEEPALIVE_OFF_MS,
    connectTimeoutMs: 0,
    logger: silentLogger,
    browser: Browsers.ubuntu('Chrome'),
    enableRecentMessageCache: false,
    getMessage,
    shouldSyncHistoryMessage: () => false,
    syncFullHistory: false,
    markOnlineOnConnect: false,
    generateHighQualityLinkPreview: false,
    userDevicesCache: settings.caches.userDevicesCache,
    msgRetryCounterCache: settings.caches.msgRetryCounterCache,
    callOfferCache: settings.caches.callOfferCache,
    placeholderResendCache: settings.caches.placeholderResendCache,
  };
}

/** What the driver does after Baileys closed a socket. */
export type CloseAction = 'restart' | 'reconnect' | 'logged_out' | 'pairing_timeout' | 'connection_replaced' | 'version_refused';

const FORBIDDEN = 403;
/** `<failure reason="405"/>` at login or registration: this client version is outdated (whatsmeow `ConnectFailureClientOutdated`). */
const CLIENT_OUTDATED = 405;
/** Baileys' message for a `<failure>` stanza (socket.js, `CB:failure`). */
const CONNECTION_FAILURE = 'Connection Failure';
/** Baileys' only signal that every pairing code expired (socket.js, `genPairQR`). */
const QR_REFS_ENDED = 'QR refs attempts ended';

/**
 * 515 follows a successful pairing: the network asks for a fresh login with the new creds.
 * 401/403/411 mean the device is no longer linked (or may never be): reconnecting cannot help.
 * 408 is both "connection lost" and "QR refs ended"; only Baileys' message tells them apart.
 * A 405 failure refuses the announced WhatsApp Web version: another version may be let in.
 */
export function closeAction(close: { statusCode: number | undefined; message: string | undefined }): CloseAction {
  if (close.statusCode === DisconnectReason.timedOut && close.message === QR_REFS_ENDED) return 'pairing_timeout';
  if (close.statusCode === CLIENT_OUTDATED && close.message === CONNECTION_FAILURE) return 'version_refused';
  switch (close.statusCode) {
    case DisconnectReason.restartRequired:
      return 'restart';
    case DisconnectReason.loggedOut:
    case FORBIDDEN:
    case DisconnectReason.multideviceMismatch:
      return 'logged_out';
    case DisconnectReason.connectionReplaced:
      return 'connection_replaced';
    default:
      return 'reconnect';
  }
}
