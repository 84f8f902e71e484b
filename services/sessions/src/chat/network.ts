import { Agent } from 'node:https';
import { WA_CERT_DETAILS } from '@whiskeysockets/baileys';
import { isLoopbackHost } from '@switchboard/service-kit';

/** Which chat network the driver talks to: the real one, or this project's emulator on loopback. */
export type ChatNetworkConfig =
  /**
   * The real network. `url` and `agent` are for tests only (never from config): a loopback URL
   * that refuses, or an agent whose DNS lookup fails, to see how an unreachable network reads.
   */
  | { kind: 'whatsapp'; url?: string; agent?: Agent }
  | { kind: 'emulator'; url: string; rootPublicKey?: Buffer; mediaCertificatePem?: string };

/** What the socket needs to reach the chosen network. */
export interface ResolvedNetwork {
  kind: ChatNetworkConfig['kind'];
  /** Unset for the real network: Baileys' default URL. */
  waWebSocketUrl?: string;
  /** Trusts the emulator's media host; unset for the real network. */
  fetchAgent?: Agent;
  /** The WebSocket's agent: unset = node's default. */
  agent?: Agent;
}

export class NonLoopbackEmulatorError extends Error {
  override readonly name = 'NonLoopbackEmulatorError';
  constructor(url: string) {
    super(`the chat emulator must be on loopback (a literal 127.0.0.0/8 or ::1 address); refusing ${url}`);
  }
}

const REAL_ROOT_PUBLIC_KEY = Buffer.from(WA_CERT_DETAILS.PUBLIC_KEY);


/**
 * Prepares the socket settings for a network. For the emulator this trusts its test root key
 * process-wide (Baileys reads `WA_CERT_DETAILS` at handshake time): a man-in-the-middle switch,
 * so it is refused unless the URL is loopback, checked before any traffic.
 */
export async function resolveNetwork(config: ChatNetworkConfig): Promise<ResolvedNetwork> {
  if (config.kind === 'whatsapp') {
    if (!WA_CERT_DETAILS.PUBLIC_KEY.equals(REAL_ROOT_PUBLIC_KEY)) {
      throw new Error('this process trusts an emulator root key; it must not also talk to the real chat network');
    }
    return { kind: 'whatsapp', ...(config.url ? { waWebSocketUrl: config.url } : {}), ...(config.agent ? { agent: config.agent } : {}) };
  }
  const url = new URL(config.url);
  if (!isLoopbackHost(url.hostname)) throw new NonLoopbackEmulatorError(config.url);
  const trust =
    config.rootPublicKey && config.mediaCertificatePem
      ? { rootPublicKey: config.rootPublicKey, mediaCertificatePem: config.mediaCertificatePem }
      : await fetchEmulatorTrust(url);
  WA_CERT_DETAILS.PUBLIC_KEY = Buffer.from(trust.rootPublicKey);
  return { kind: 'emulator', waWebSocketUrl: url.toString(), fetchAgent: new Agent({ ca: trust.mediaCertificatePem }) };
}

async function fetchEmulatorTrust(wsUrl: URL): Promise<{ rootPublicKey: Buffer; mediaCertificatePem: string }> {
  const trustUrl = new URL('/trust', wsUrl);
  trustUrl.protocol = wsUrl.protocol === 'wss:' ? 'https:' : 'http:';
  const response = await fetch(trustUrl, { signal: AbortSignal.timeout(5_000) });
  if (!response.ok) throw new Error(`emulator ${trustUrl.toString()} answered ${response.status}`);
  const body = (await response.json()) as { rootPublicKey?: unknown; mediaCertificatePem?: unknown };
  if (typeof body.rootPublicKey !== 'string' || typeof body.mediaCertificatePem !== 'string') {
    throw new Error(`emulator ${trustUrl.toString()} returned no trust material`);
  }
  return { rootPublicKey: Buffer.from(body.rootPublicKey, 'hex'), mediaCertificatePem: body.mediaCertificatePem };
}
