/**
 * Why a connection to the chat network could not be made, in the words a person can act on:
 * - `dns`: the host name did not resolve (offline, no DNS, a blocked name);
 * - `tcp`: no TCP connection (refused, reset, unreachable, timed out: a firewall or no route);
 * - `tls`: the TLS handshake failed (an intercepting proxy, a clock far off, a broken middlebox);
 * - `rejected`: the network answered and refused us (an HTTP status at the upgrade, or a
 *   connection-failure stanza such as 405 for an outdated client version);
 * - `silent`: the connection was open but the network stopped answering (keepalive pings
 *   unanswered): a dead path, a middlebox that dropped the connection without a word.
 */
export type NetworkFailureCause = 'dns' | 'tcp' | 'tls' | 'rejected' | 'silent';

export interface NetworkFailure {
  cause: NetworkFailureCause;
  /** The host that could not be reached or resolved, when the error names it. */
  host?: string;
  /** One line: the cause in words with the underlying error code. */
  detail: string;
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'EAI_NODATA']);
const TCP_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE', 'ECONNABORTED', 'EADDRNOTAVAIL']);
/** Node's TLS and certificate error codes (OpenSSL's verify codes and node's ERR_TLS_* / ERR_SSL_*). */
const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT$|SELF_SIGNED_CERT_IN_CHAIN$|HOSTNAME_MISMATCH$)/;
const UPGRADE_REFUSED = /Unexpected server response: (\d{3})/;
/** The keepalive gave up: nothing received for its interval plus 5 s (Baileys' words and rule, socket.js `startKeepAliveRequest`). */
export const KEEPALIVE_GAVE_UP = 'Connection was lost';
export const KEEPALIVE_SLACK_MS = 5_000;
const CLIENT_OUTDATED = 405;

interface ErrorLike {
  message?: unknown;
  code?: unknown;
  hostname?: unknown;
  address?: unknown;
  data?: unknown;
  cause?: unknown;
  output?: { statusCode?: unknown };
}

const asErrorLike = (value: unknown): ErrorLike | undefined => (typeof value === 'object' && value !== null ? (value as ErrorLike) : undefined);

/**
 * The network failure behind a closed socket, or undefined when the error is not one (a drop of
 * a working connection, a logout, our own close). Baileys wraps the WebSocket's error in a Boom
 * (`data` holds the original, with node's `code`); a connection-failure stanza is a Boom with
 * the network's status code and the stanza's attributes. `keepAliveIntervalMs`: the sockets'
 * ping interval, to say how long a silent one went unanswered.
 */
export function classifyNetworkFailure(error: unknown, keepAliveIntervalMs?: number): NetworkFailure | undefined {
  const boom = asErrorLike(error);
  if (!boom) return undefined;
  if (boom.message === KEEPALIVE_GAVE_UP) {
    const silence = keepAliveIntervalMs === undefined ? '' : ` for over ${(keepAliveIntervalMs + KEEPALIVE_SLACK_MS) / 1000} s`;
    return { cause: 'silent', detail: `the chat network stopped answering an open connection: nothing received${silence}, keepalive pings unanswered` };
  }
  const underlying = asErrorLike(boom.data) ?? asErrorLike(boom.cause) ?? boom;
  const code = typeof underlying.code === 'string' ? underlying.code : undefined;
  const message = typeof underlying.message === 'string' ? underlying.message : '';
  const host = typeof underlying.hostname === 'string' ? underlying.hostname : typeof underlying.address === 'string' ? underlying.address : undefined;
  const at = host ? { host } : {};
  if (code && DNS_CODES.has(code)) return { cause: 'dns', ...at, detail: `${host ?? 'the chat network\'s host'} could not be resolved (${code})` };
  if (code && TCP_CODES.has(code)) return { cause: 'tcp', ...at, detail: `no TCP connection to ${host ?? 'the chat network'} (${code})` };
  if ((code && TLS_CODE.test(code)) || /\bSSL\b|\bTLS\b|certificate/i.test(message)) {
    return { cause: 'tls', ...at, detail: `the TLS handshake with ${host ?? 'the chat network'} failed (${code ?? message})` };
  }
  const refusedStatus = UPGRADE_REFUSED.exec(message)?.[1];
  if (refusedStatus) return { cause: 'rejected', detail: `the chat network refused the connection (HTTP ${refusedStatus})` };
  if (typeof boom.message === 'string' && boom.message === 'Connection Failure') {
    const status = boom.output?.statusCode;
    const why = status === CLIENT_OUTDATED ? ': client version outdated' : '';
    return { cause: 'rejected', detail: `the chat network refused the login (connection failure${typeof status === 'number' ? ` ${status}` : ''}${why})` };
  }
  return undefined;
}

/** The network refused `version` as outdated also after it was looked up anew: no reconnect can help. */
export function versionRejected(version: readonly number[]): NetworkFailure {
  return {
    cause: 'rejected',
    detail: `the chat network refuses WhatsApp Web version ${version.join('.')} as outdated (connection failure 405), also after a fresh lookup of the current version; update Switchboard, or let it reach web.whatsapp.com to look the version up`,
  };
}
