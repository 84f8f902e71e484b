import type { EventEmitter } from 'node:events';
import type { NetworkFailure } from './network-failure.js';

/** A phone number in international form, digits only (E.164 without the plus). */
export type PhoneNumber = string;

/** What the network answers once it has taken a message: its id on the network and when. */
export interface SentMessage {
  id: string;
  timestamp: Date;
}

export type MediaKind = 'image' | 'video' | 'document' | 'audio';

export interface MediaContent {
  kind: MediaKind;
  bytes: Uint8Array;
  mimetype: string;
  caption?: string;
  filename?: string;
}

export interface LocationContent {
  latitude: number;
  longitude: number;
  name?: string;
  address?: string;
}

/** A quick-reply button; the recipient's answer carries `id` back. */
export interface ReplyButton {
  id: string;
  text: string;
}

export interface ButtonsContent {
  text: string;
  /** At most three, as the network shows no more. */
  buttons: ReplyButton[];
  footer?: string;
}

/** A poll: 2–12 options, unique; `multipleAnswers` false lets a contact choose one, true any number. */
export interface PollContent {
  question: string;
  options: string[];
  multipleAnswers: boolean;
}

export interface SendOptions {
  /**
   * The id the message carries on the network. Given by the caller so that sending again after
   * an unknown outcome repeats the same message (phones show one message per id) rather than
   * making a second one; minted by the driver when absent.
   */
  id?: string;
}

export interface TextOptions extends SendOptions {
  /** Network id of the message this one answers (a quoted reply). */
  quotedId?: string;
}

/** A pairing code to show as a QR; the network rotates it until a phone scans one. */
export interface QrEvent {
  code: string;
  expiresAt: Date;
}

/**
 * The code to type on the phone instead of scanning a QR (WhatsApp: Linked devices, "Link with
 * phone number instead"): 8 characters shown as `ABCD-EFGH`, one per pairing; it works until the
 * pairing's registration ends.
 */
export interface PairingCodeEvent {
  code: string;
  expiresAt: Date;
}

export interface StartOptions {
  /**
   * With no stored credentials, also pair by code for this number: `pairingCode` is emitted once,
   * after the first `qr` (the phone of this number enters the code; the QR codes keep working
   * too until one of the two links the device, as on WhatsApp).
   */
  pairByCode?: PhoneNumber;
}

export interface ConnectedEvent {
  phone: PhoneNumber;
  /** Set when the driver reconnected by itself after the connection was lost (dropped, or silent). */
  reconnected?: true;
}

/**
 * Why a connection ended:
 * - `logged_out`: the phone unlinked this device (or we did); credentials are wiped, no reconnect.
 * - `connection_lost`: transient; the driver reconnects by itself while `willReconnect` is true.
 * - `pairing_timeout`: every pairing code expired unscanned; start again to get new ones.
 * - `connection_replaced`: another client took this device's connection over; no reconnect.
 * - `version_rejected`: the network refused the announced WhatsApp Web version as outdated (405),
 *   also after it was looked up anew; no reconnect (`failure` names the version).
 */
export type DisconnectReason = 'logged_out' | 'connection_lost' | 'pairing_timeout' | 'connection_replaced' | 'version_rejected';

export interface DisconnectedEvent {
  reason: DisconnectReason;
  willReconnect: boolean;
  /** Set when the network could not be reached at all (DNS, TCP, TLS), refused us, or went silent. */
  failure?: NetworkFailure;
}

export type ReceiptStatus = 'delivered' | 'read';

/** The recipient's device reported progress on a message we sent. */
export interface ReceiptEvent {
  id: string;
  status: ReceiptStatus;
  at: Date;
}

/** Media a contact can send; `voice` is a push-to-talk audio note. */
export type InboundMediaKind = 'image' | 'video' | 'audio' | 'voice' | 'document' | 'sticker';

/** Received media, downloaded and decrypted through the session's connection. */
export interface InboundMedia {
  kind: InboundMediaKind;
  mimetype: string;
  bytes: Uint8Array;
  caption?: string;
  filename?: string;
}

/** What a contact sent, by kind. `unsupported` names the network's message type. */
export type InboundContent =
  | { type: 'text'; text: string }
  | { type: 'media'; media: InboundMedia }
  | { type: 'location'; latitude: number; longitude: number; name?: string; address?: string }
  | { type: 'contact'; displayName: string; vcard: string }
  /** `targetId`: network id of the message reacted to; an empty `emoji` removes the reaction. */
  | { type: 'reaction'; targetId: string; emoji: string }
  /**
   * A vote on a poll, encrypted with the poll's secret: the SHA-256 (hex) of each option the voter
   * has chosen now (empty: withdrawn), or null when this device could not open it (a poll it did
   * not send). Only the poll's sender knows the options' texts.
   */
  | { type: 'poll_vote'; pollId: string; selectedOptionHashes: string[] | null }
  | { type: 'button_reply'; id: string; text?: string }
  | { type: 'unsupported'; rawType: string };

/**
 * A message a contact sent to the linked number. `from` is the sender's number also when the
 * network named them by LID (`fromLid` then holds the LID's user part).
 */
export interface InboundEvent {
  id: string;
  from: PhoneNumber;
  fromLid?: string;
  /** When the sender sent it (the network's timestamp). */
  sentAt: Date;
  /** Network id of the message this one quotes. */
  quotedId?: string;
  content: InboundContent;
}

/** What the network says of a number. */
export interface ContactLookup {
  onWhatsApp: boolean;
  /** `…@lid`, when the network names the contact's LID. */
  lid?: string;
}

export interface ChatDriverEventMap {
  qr: [QrEvent];
  pairingCode: [PairingCodeEvent];
  connected: [ConnectedEvent];
  disconnected: [DisconnectedEvent];
  receipt: [ReceiptEvent];
  inbound: [InboundEvent];
}

/** One outgoing message's content, as this driver's sends take it. */
export type OutgoingContent =
  | { type: 'text'; text: string; quotedId?: string }
  | { type: 'media'; media: MediaContent }
  | { type: 'location'; location: LocationContent }
  | { type: 'buttons'; buttons: ButtonsContent }
  | { type: 'poll'; poll: PollContent };

/**
 * Our durable record of what a session sent, by network id: what a recipient's phone that could
 * not decrypt a message asks for again (a retry receipt), also after a restart. Undefined when the
 * message is unknown, or its content was erased: it must not go out again.
 */
export type SentContentSource = (networkMessageId: string) => Promise<SentContentRecord | undefined>;

/** A message as it was sent: to whom (only they may have it again), and what. */
export interface SentContentRecord {
  to: PhoneNumber;
  content: OutgoingContent;
}

/** What a driver is made with besides its session id. */
export interface DriverOptions {
  /** Where resends come from; without it, only the driver's last few sends can be sent again. */
  sentContent?: SentContentSource;
  /** A resend a recipient asked for could not be made (the record out of reach, the media not uploaded); it may ask again. */
  onResendFailed?: (messageId: string, error: unknown) => void;
}

/**
 * One linked device on the chat network, that is one session's connection. Sends resolve once
 * the network acknowledged the message; receipts and inbound messages arrive as events.
 */
export interface ChatDriver extends Pick<EventEmitter<ChatDriverEventMap>, 'on' | 'once' | 'off'> {
  /** Connects with the stored credentials, or starts pairing (emits `qr`, and `pairingCode`: see StartOptions) when there are none. */
  start(options?: StartOptions): Promise<void>;
  sendText(to: PhoneNumber, text: string, options?: TextOptions): Promise<SentMessage>;
  sendMedia(to: PhoneNumber, media: MediaContent, options?: SendOptions): Promise<SentMessage>;
  sendLocation(to: PhoneNumber, location: LocationContent, options?: SendOptions): Promise<SentMessage>;
  sendButtons(to: PhoneNumber, buttons: ButtonsContent, options?: SendOptions): Promise<SentMessage>;
  /** Sends a poll; votes on it arrive as `poll_vote` inbound messages. */
  sendPoll(to: PhoneNumber, poll: PollContent, options?: SendOptions): Promise<SentMessage>;
  /**
   * Shows `to` "typing…" for `ms`, as a person would before a message (chat state `composing`,
   * then `paused`); resolves once it is cleared. The send that follows has its own deadline.
   */
  showTyping(to: PhoneNumber, ms: number): Promise<void>;
  /** Whether `phone` has an account on the network (asked over this connection), with its LID when named. */
  lookupContact(phone: PhoneNumber): Promise<ContactLookup>;
  /**
   * Switchboard recorded the received message `networkMessageId` (it is in the outbox to messaging):
   * the driver's own copy may go. A message the driver keeps until then (a LID-only message held for
   * its sender's number) is told again after a restart or crash that came first.
   */
  inboundRecorded(networkMessageId: string): void;
  /**
   * Unlinks this device from the phone and wipes its stored credentials. Rejects (after the wipe)
   * when the unlink could not be sent, no connection being open: the phone still lists the device
   * until it is removed there.
   */
  logout(): Promise<void>;
  /**
   * Closes the connection and keeps the credentials, so a later `start()` resumes; resolves once
   * it is closed (another replica may open the next one at once), after the sends already written
   * were acknowledged (bounded), unless `waitForAcks` is false (fencing: close now), and once the
   * messages received before were told (`inbound`; bounded: a media download may be under way).
   */
  stop(options?: { waitForAcks?: boolean }): Promise<void>;
}
