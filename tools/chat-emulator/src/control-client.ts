import type { SeenChatState } from './chat-states.js';
import type { DeviceStatus } from './devices.js';
import type { ContactSettings, ReceivedMessage } from './model.js';
import type { SentInbound } from './inbound.js';
import type { ScanResult } from './pairing-service.js';
import type { WaVersion } from './versions.js';

/** A non-2xx answer from the control API, with its stable error code. */
export class EmulatorControlError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'EmulatorControlError';
  }
}

export interface EmulatorHealth {
  status: 'ok';
  devices: number;
  online: number;
  /** Clients older than this are refused (405); null = any version. */
  minVersion: WaVersion | null;
  messages: { received: number; decrypted: number; failed: number };
  /** The emulator process (shared with whatever else runs in it). */
  process: { cpuMs: number; heapUsedBytes: number; rssBytes: number };
}

type Media = { base64: string; caption?: string; filename?: string; mimetype?: string };

/** The body of `POST /contacts/{phone}/messages`: `to`, exactly one kind, and the extras. */
export type InboundBody = { to: string; quotedMessageId?: string; id?: string; addressing?: 'lid' | 'pn'; alternate?: boolean } & (
  | { text: string }
  | { image: Media }
  | { video: Media }
  | { audio: Media & { ptt?: boolean } }
  | { document: Media }
  | { sticker: Media }
  | { location: { latitude: number; longitude: number; name?: string; address?: string } }
  | { contact: { displayName: string; vcard: string } }
  | { reaction: { messageId: string; emoji: string } }
  | { pollVote: { pollMessageId: string; options: string[] } }
  | { buttonReply: { id: string; text?: string } }
);

/** Typed client of the emulator's control API (for tests and tools). */
export class EmulatorControlClient {
  constructor(private readonly controlUrl: string) {}

  /** A phone with number `phone` scans the QR: a `data:image/png;base64,...` image or the raw pairing string. */
  scan(qrCode: string, phone: string): Promise<ScanResult> {
    return this.call('POST', '/scan', { qrCode, phone });
  }

  /**
   * The phone with number `phone` enters the 8-character code its linking device shows (`ABCD-EFGH`;
   * case and the hyphen do not matter): resolves once linked; a wrong code is 422 `code_incorrect`.
   */
  pair(phone: string, code: string): Promise<ScanResult> {
    return this.call('POST', '/pair', { phone, code });
  }

  setContact(phone: string, settings: Partial<ContactSettings>): Promise<ContactSettings> {
    return this.call('PUT', `/contacts/${phone}`, settings);
  }

  /** What the contact received, as its phone shows it (a poll's secret stays on the phone). */
  messages(phone: string): Promise<Omit<ReceivedMessage, 'pollSecret'>[]> {
    return this.call('GET', `/contacts/${phone}/messages`);
  }

  /** The chat states ("typing…": `composing`, then `paused`) linked devices showed the contact, oldest first. */
  chatStates(phone: string): Promise<SeenChatState[]> {
    return this.call('GET', `/contacts/${phone}/chatstates`);
  }

  /** The contact `from` sends `text` to the linked number `to`. */
  inbound(from: string, to: string, text: string): Promise<SentInbound> {
    return this.send(from, { to, text });
  }

  /**
   * The contact `from` (a phone number, or its LID jid `<lid>@lid`) sends any inbound kind: see
   * `InboundBody` and the README's control API table.
   */
  send(from: string, body: InboundBody): Promise<SentInbound> {
    return this.call('POST', `/contacts/${from}/messages`, body);
  }

  /**
   * The device linked to `phone` (404 if none), with its client connections logged in now and the
   * most at once (2 means a second client logged in before the first one was gone).
   */
  device(phone: string): Promise<DeviceStatus> {
    return this.call('GET', `/devices/${phone}`);
  }

  drop(phone: string): Promise<{ dropped: true }> {
    return this.call('POST', `/devices/${phone}/drop`);
  }

  /** The device's connection stays open but goes silent: nothing read from it, nothing sent to it. */
  blackhole(phone: string): Promise<{ blackholed: true }> {
    return this.call('POST', `/devices/${phone}/blackhole`);
  }

  /** The silent connection is read again (late) and gets what was held for it. */
  endBlackhole(phone: string): Promise<{ blackholed: false }> {
    return this.call('DELETE', `/devices/${phone}/blackhole`);
  }

  /** Clients announcing an older WhatsApp Web version are refused with 405 from now on; null accepts any. */
  setMinVersion(version: WaVersion | null): Promise<{ minVersion: WaVersion | null }> {
    return this.call('POST', '/network/min-version', { version });
  }

  /** The media host answers every download (of what contacts sent, or the session uploaded) after `downloadMs`; 0 = at once. */
  setMediaDelay(downloadMs: number): Promise<{ downloadMs: number }> {
    return this.call('POST', '/network/media-delay', { downloadMs });
  }

  logout(phone: string): Promise<{ loggedOut: true }> {
    return this.call('POST', `/devices/${phone}/logout`);
  }

  /** `gc`: collect garbage first if the emulator runs with --expose-gc. */
  health(gc = false): Promise<EmulatorHealth> {
    return this.call('GET', gc ? '/health?gc=1' : '/health');
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.controlUrl}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const payload = (await response.json()) as unknown;
    if (!response.ok) {
      const { error, message } = (payload ?? {}) as { error?: string; message?: string };
      throw new EmulatorControlError(response.status, error ?? 'unknown', message ?? response.statusText);
    }
    return payload as T;
  }
}
