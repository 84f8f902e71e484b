import type { proto } from '@whiskeysockets/baileys';
import type { Node } from './wire.js';

/** A WhatsApp Web client version, as Baileys' `version` and the ClientPayload's `appVersion` carry it. */
export type WaVersion = [number, number, number];

/**
 * What the network answers an outdated client instead of `success`, at login and at registration
 * alike: whatsmeow names 405 `ConnectFailureClientOutdated` ("client is out of date",
 * types/events/events.go; handled in connectionevents.go `handleConnectFailure`); Baileys reports
 * it as `Connection Failure` with status 405 (socket.js, `CB:failure`).
 */
export const clientOutdated: Node = { tag: 'failure', attrs: { reason: '405', location: 'emulator' } };

/** `"2.3000.1023456789"` (the way an operator writes it) as a version; throws on anything else. */
export const parseWaVersion = (text: string): WaVersion => {
  const parts = text.split('.');
  if (parts.length !== 3 || !parts.every((part) => /^\d{1,12}$/.test(part))) {
    throw new Error(`a WhatsApp Web version is three numbers separated by dots (e.g. 2.3000.1023456789), got ${text}`);
  }
  return parts.map(Number) as WaVersion;
};

/** A version as JSON gives it (`[2, 3000, 1023456789]`), or undefined when it is not one. */
export const asWaVersion = (value: unknown): WaVersion | undefined =>
  Array.isArray(value) && value.length === 3 && value.every((part) => Number.isSafeInteger(part) && (part as number) >= 0)
    ? (value as WaVersion)
    : undefined;

/** The version a client announced in its handshake payload. */
export const clientVersion = (payload: proto.IClientPayload): WaVersion => {
  const app = payload.userAgent?.appVersion;
  return [app?.primary ?? 0, app?.secondary ?? 0, app?.tertiary ?? 0];
};

/** Whether `version` is older than `minimum` (none = every version is accepted). */
export const isOutdated = (version: WaVersion, minimum: WaVersion | undefined): boolean => {
  if (!minimum) return false;
  for (let index = 0; index < 3; index++) {
    if (version[index] !== minimum[index]) return version[index]! < minimum[index]!;
  }
  return false;
};
