import { Logins } from './logins.js';
import { DEFAULT_CONTACT, lidForPhone } from './model.js';
import type { ContactSettings, LinkedDevice, ReceivedMessage } from './model.js';
import type { NetworkSnapshot } from './network-journal.js';
import { fileArrival, logFromLines } from './received-log.js';
import type { ArrivedMessage } from './received-log.js';
import { SignalPeer } from './signal-peer.js';
import type { StateStore } from './state-store.js';
import type { WaVersion } from './versions.js';
import type { Node } from './wire.js';

/** What the network can do to a live, logged-in client connection. */
export interface LiveLink {
  readonly account: LinkedDevice | undefined;
  send(node: Node): void;
  /** Sends a final stanza (if any) and closes the stream. */
  end(finalNode?: Node): void;
  /** Cuts the connection without a word, like a network failure. */
  drop(): void;
  readonly isOpen: boolean;
  /** Keeps the connection open but stops reading it and writing to it (a silent, dead path). */
  blackhole(): void;
  /** Ends the black hole: what the client sent meanwhile is read now. */
  restore(): void;
}

/**
 * Messages kept per contact in memory (older ones stay on disk only). A repeat of a message older
 * than these is shown as a new one.
 */
const INBOX_LIMIT = 1000;
/** Stanzas held for an offline device until it logs in again. */
const OUTBOX_LIMIT = 500;

/**
 * The emulated network's state: linked devices, contacts and their phones, what they received,
 * who is online. Per-account state stays small: no frame logs, bounded inboxes and outboxes.
 */
export class Network {
  readonly devices = new Map<string, LinkedDevice>();
  /** The connection each device uses now (the newest to log in). */
  readonly online = new Map<string, LiveLink>();
  /** Every logged-in connection per device, counting the moment a newer one overlaps an older one. */
  readonly logins = new Logins();
  /**
   * Black-holed connections per device: open, but out of `online`, so what the network has for
   * the device is held for it (as for an offline one) instead of written into the void.
   */
  readonly blackholed = new Map<string, LiveLink>();
  /** Privacy tokens each device issued to its contacts (`iq xmlns="privacy"` with `<tokens>`); memory only. */
  readonly privacyTokensIssued = new Map<string, number>();
  /** Clients announcing an older WhatsApp Web version are refused (405); unset = any version. */
  minVersion: WaVersion | undefined;
  private readonly deviceCounters = new Map<string, number>();
  private readonly contacts = new Map<string, ContactSettings>();
  private readonly peers = new Map<string, SignalPeer>();
  private readonly inboxes = new Map<string, ReceivedMessage[]>();
  private readonly outboxes = new Map<string, Node[]>();

  constructor(private readonly store: StateStore | undefined, minVersion?: WaVersion) {
    this.minVersion = minVersion;
    const saved = store?.openNetwork(() => this.snapshot());
    for (const device of saved?.devices ?? []) this.devices.set(device.phone, device);
    for (const [phone, n] of Object.entries(saved?.deviceCounters ?? {})) this.deviceCounters.set(phone, n);
    for (const [phone, c] of Object.entries(saved?.contacts ?? {})) this.contacts.set(phone, c);
  }

  /** The Signal phone behind a number: a contact, or an account owner's primary device. */
  peer(pn: string): SignalPeer {
    const known = this.peers.get(pn);
    if (known) return known;
    const store = this.store;
    const peer: SignalPeer = new SignalPeer(pn, lidForPhone(pn), store?.loadPeer(pn), () => {
      store?.savePeer(pn, () => peer.snapshot());
    });
    this.peers.set(pn, peer);
    return peer;
  }

  /** Settings stored before a field existed read as its default. */
  contact(pn: string): ContactSettings {
    return { ...DEFAULT_CONTACT, ...this.contacts.get(pn) };
  }

  /**
   * Whether the contact's phone fails to decrypt the copy it is getting now: one of its next
   * `failDecryptNext` (counted down and kept), else at its `failDecryptRate`.
   */
  failsToDecrypt(pn: string): boolean {
    const settings = this.contact(pn);
    if (settings.failDecryptNext > 0) {
      this.setContact(pn, { ...settings, failDecryptNext: settings.failDecryptNext - 1 });
      return true;
    }
    return settings.failDecryptRate > 0 && Math.random() < settings.failDecryptRate;
  }

  setContact(pn: string, settings: ContactSettings): void {
    this.contacts.set(pn, settings);
    this.store?.saveNetworkChange(`contact:${pn}`, () => ({ kind: 'contact', phone: pn, settings: this.contacts.get(pn) ?? settings }));
  }

  /** A number is on WhatsApp if it has a linked device or its contact settings say so. */
  isOnNetwork(pn: string): boolean {
    return this.devices.has(pn) || this.contact(pn).onNetwork;
  }

  nextDeviceId(phone: string): number {
    const next = (this.deviceCounters.get(phone) ?? 0) + 1;
    this.deviceCounters.set(phone, next);
    this.store?.saveNetworkChange(`deviceCounter:${phone}`, () => ({ kind: 'deviceCounter', phone, lastDeviceId: this.deviceCounters.get(phone) ?? next }));
    return next;
  }

  link(device: LinkedDevice): void {
    this.devices.set(device.phone, device);
    this.outboxes.delete(device.phone);
    this.logins.linked(device.phone);
    this.deviceChanged(device.phone);
  }

  unlink(phone: string): LinkedDevice | undefined {
    const device = this.devices.get(phone);
    this.devices.delete(phone);
    this.outboxes.delete(phone);
    this.deviceChanged(phone);
    return device;
  }

  /**
   * Call after mutating the device linked to `phone` in place. What is saved is the device linked
   * to the number when the turn ends (none, if it was unlinked meanwhile), never a stale record.
   */
  deviceChanged(phone: string): void {
    this.store?.saveNetworkChange(`device:${phone}`, () => ({ kind: 'device', phone, device: this.devices.get(phone) ?? null }));
  }

  /** Everything the journal's snapshot holds, as it is now. */
  private snapshot(): NetworkSnapshot {
    return {
      devices: [...this.devices.values()],
      deviceCounters: Object.fromEntries(this.deviceCounters),
      contacts: Object.fromEntries(this.contacts),
    };
  }

  received(pn: string): ReceivedMessage[] {
    let inbox = this.inboxes.get(pn);
    if (!inbox) {
      inbox = logFromLines(this.store?.loadInbox(pn, INBOX_LIMIT) ?? []);
      this.inboxes.set(pn, inbox);
    }
    return inbox;
  }

  /** Files a copy the phone of `pn` decrypted: shown once per message id, repeats counted. */
  record(pn: string, arrived: ArrivedMessage): void {
    const inbox = this.received(pn);
    const entry = fileArrival(inbox, arrived);
    if (inbox.length > INBOX_LIMIT) inbox.splice(0, inbox.length - INBOX_LIMIT);
    this.store?.appendInbox(pn, entry);
  }

  /** Sends to the account's device now, or holds the stanza until it logs in (bounded). */
  deliver(phone: string, node: Node): void {
    const link = this.online.get(phone);
    if (link) return link.send(node);
    if (!this.devices.has(phone)) return;
    const outbox = this.outboxes.get(phone) ?? [];
    if (outbox.length < OUTBOX_LIMIT) outbox.push(node);
    this.outboxes.set(phone, outbox);
  }

  takeOutbox(phone: string): Node[] {
    const outbox = this.outboxes.get(phone) ?? [];
    this.outboxes.delete(phone);
    return outbox;
  }

  flush(): void {
    this.store?.flush();
  }
}
