import { EmulatorError } from './errors.js';
import type { Network } from './network.js';
import type { Node } from './wire.js';

/** The phone unlinked the device (Baileys: `DisconnectReason.loggedOut`). */
const deviceRemoved: Node = { tag: 'stream:error', attrs: { code: '401' }, content: [{ tag: 'conflict', attrs: { type: 'device_removed' } }] };

const notLinked = (phone: string): EmulatorError => new EmulatorError(404, 'device_not_linked', `no device is linked to ${phone}`);

/** A linked device as the control API shows it (`GET /devices/{phone}`). */
export interface DeviceStatus {
  phone: string;
  jid: string;
  deviceId: number;
  online: boolean;
  /** Client connections of this device logged in now (a black-holed one included). */
  connections: number;
  /** A connection of this device is black-holed: open, but nothing is read from it or sent to it. */
  blackholed: boolean;
  /** The most logged in at once since the device was linked (or the emulator started). */
  maxConcurrentConnections: number;
  /** One-time pre-keys the device uploaded that the network has not handed out yet. */
  oneTimePreKeys: number;
  /** Trusted-contact privacy tokens the device issued to its contacts since the emulator started. */
  privacyTokensIssued: number;
  linkedAt: string;
}

/** What the owner's phone and the network can do to a linked device. */
export class DeviceControl {
  constructor(private readonly network: Network) {}

  /** The phone unlinks its device: a live connection is told, its credentials are refused from now on. */
  logout(phone: string): void {
    if (!this.network.unlink(phone)) throw notLinked(phone);
    this.network.online.get(phone)?.end(deviceRemoved);
  }

  /** A new scan of the same number replaces its device: the old one is logged out. */
  unlinkIfLinked(phone: string): void {
    if (this.network.devices.has(phone)) this.logout(phone);
  }

  /** Cuts the device's connection without a word, like a network failure; the client reconnects. */
  drop(phone: string): void {
    if (!this.network.devices.has(phone)) throw notLinked(phone);
    const link = this.network.online.get(phone);
    if (!link) throw new EmulatorError(409, 'device_offline', `the device of ${phone} is not connected`);
    link.drop();
  }

  /**
   * The device's connection goes silent: it stays open but nothing is read from it or sent to it
   * (frames from the client, WebSocket pings and closes included), and what the network has for the
   * device is held as for an offline one. Its next login is served as usual.
   */
  blackhole(phone: string): void {
    if (!this.network.devices.has(phone)) throw notLinked(phone);
    const link = this.network.online.get(phone);
    if (!link) throw new EmulatorError(409, 'device_offline', `the device of ${phone} is not connected`);
    link.blackhole();
    this.network.online.delete(phone);
    this.network.blackholed.set(phone, link);
  }

  /**
   * The path is back: the silent connection, if its client has not closed it, is read again (what
   * the client sent meanwhile arrives late) and gets what was held for it. Ending no black hole is
   * not an error.
   */
  endBlackhole(phone: string): void {
    if (!this.network.devices.has(phone)) throw notLinked(phone);
    const link = this.network.blackholed.get(phone);
    if (!link) return;
    this.network.blackholed.delete(phone);
    link.restore();
    if (!link.isOpen || this.network.online.has(phone)) return;
    this.network.online.set(phone, link);
    for (const node of this.network.takeOutbox(phone)) link.send(node);
  }

  describe(phone: string): DeviceStatus {
    const device = this.network.devices.get(phone);
    if (!device) throw notLinked(phone);
    const { online, logins } = this.network;
    return {
      phone,
      jid: `${phone}:${device.deviceId}@s.whatsapp.net`,
      deviceId: device.deviceId,
      online: online.has(phone),
      connections: logins.count(phone),
      blackholed: this.network.blackholed.has(phone),
      maxConcurrentConnections: logins.peak(phone),
      oneTimePreKeys: device.preKeyCount,
      privacyTokensIssued: this.network.privacyTokensIssued.get(phone) ?? 0,
      linkedAt: device.linkedAt,
    };
  }
}
