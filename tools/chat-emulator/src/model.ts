/** A companion device linked to a phone number by scanning its QR code (one per phone). */
export interface LinkedDevice {
  phone: string;
  lid: string;
  deviceId: number;
  keyIndex: number;
  /** The client's Noise static public key (hex): the credential it logs in with. */
  noiseKey: string;
  registrationId: number;
  identityKey: string;
  signedPreKey: { keyId: number; publicKey: string; signature: string };
  /** A bounded sample of the uploaded one-time pre-keys, for contacts starting a session. */
  preKeys: { keyId: number; publicKey: string }[];
  /** How many uploaded one-time pre-keys the server still holds. */
  preKeyCount: number;
  linkedAt: string;
}

import type { Addressing } from './inbound-spec.js';

/** How a recipient behaves: `null` delay = never. */
export interface ContactSettings {
  onNetwork: boolean;
  deliverAfterMs: number | null;
  readAfterMs: number | null;
  /** The phone fails to decrypt this many of the next message copies it gets (counts down), and asks for each again. */
  failDecryptNext: number;
  /** Beyond those, the share (0 to 1) of copies it fails to decrypt. */
  failDecryptRate: number;
  /**
   * How the network names this contact in its messages and receipts; null = the emulator's mode.
   * Changed from `pn` to `lid` mid-conversation, it is an account WhatsApp moved to LIDs.
   */
  addressing: Addressing | null;
}

export const DEFAULT_CONTACT: ContactSettings = { onNetwork: true, deliverAfterMs: 100, readAfterMs: 1000, failDecryptNext: 0, failDecryptRate: 0, addressing: null };

export type ReceivedType = 'text' | 'image' | 'video' | 'document' | 'audio' | 'location' | 'buttons' | 'poll';

/** A message as the recipient's phone decrypted it. */
export interface ReceivedMessage {
  id: string;
  from: string;
  type: ReceivedType;
  text?: string;
  caption?: string;
  filename?: string;
  mimetype?: string;
  sha256?: string;
  latitude?: number;
  longitude?: number;
  name?: string;
  address?: string;
  buttons?: { id: string; text: string }[];
  footer?: string;
  /** A poll: its question, its options and whether several may be chosen. */
  poll?: { question: string; options: string[]; multipleAnswers: boolean };
  /**
   * The poll's `messageSecret` (base64), which the contact's votes are encrypted with. Kept with the
   * message, as a phone keeps it, and never shown by the control API.
   */
  pollSecret?: string;
  quotedId?: string;
  /** When the first copy arrived. */
  receivedAt: string;
  /**
   * Further copies of the same message id the phone got after the first one. A WhatsApp client
   * shows a message id once, so they change nothing on screen; counted to tell a sender that
   * resends only what it was unsure of from one that sends twice.
   */
  repeats: number;
}

/** When each pairing ref is valid, in milliseconds from the moment the refs were issued. */
export interface PairingSchedule {
  firstRefMs: number;
  nextRefMs: number;
  refCount: number;
}

/** Real WhatsApp: the first QR lasts 60 s, then five more for 20 s each. */
export const REAL_PAIRING: PairingSchedule = { firstRefMs: 60_000, nextRefMs: 20_000, refCount: 6 };

const PHONE = /^[1-9][0-9]{5,15}$/;

export const isPhone = (value: unknown): value is string => typeof value === 'string' && PHONE.test(value);

/** Each number's LID (its privacy-preserving id on the network), derived so it survives restarts. */
export const lidForPhone = (phone: string): string => `9${phone}`;

export const phoneForLid = (lid: string): string | undefined => (lid.startsWith('9') ? lid.slice(1) : undefined);
