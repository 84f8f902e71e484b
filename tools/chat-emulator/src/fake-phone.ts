import { Curve, WA_ADV_ACCOUNT_SIG_PREFIX, hmacSign, proto } from '@whiskeysockets/baileys';
import type { KeyPair } from '@whiskeysockets/baileys';
import { SERVER_JID, child, bytesOf, nowSeconds } from './wire.js';
import type { Node } from './wire.js';

/**
 * What the phone knows of the companion it links: its Noise key (its login credential), its
 * identity key, and the secret that keys `pair-success`'s HMAC (from the QR, or derived from a code).
 */
export interface CompanionKeys {
  noiseKey: Buffer;
  identityKey: Buffer;
  advSecret: Buffer;
}

/** The contents of a WhatsApp pairing QR code: `https://wa.me/settings/linked_devices#ref,noise,identity,adv,platform`. */
export interface PairingQr extends CompanionKeys {
  ref: string;
}

export const parsePairingQr = (text: string): PairingQr | undefined => {
  const fields = (text.split('#')[1] ?? text).split(',');
  const [ref, noise, identity, adv] = fields;
  if (!ref || !noise || !identity || !adv) return undefined;
  const noiseKey = Buffer.from(noise, 'base64');
  const identityKey = Buffer.from(identity, 'base64');
  if (noiseKey.length !== 32 || identityKey.length !== 32) return undefined;
  return { ref, noiseKey, identityKey, advSecret: Buffer.from(adv, 'base64') };
};

export interface PairTarget {
  jid: string;
  lid: string;
  keyIndex: number;
  /** The primary phone's identity key, which signs the companion's identity (ADV). */
  accountKey: KeyPair;
}

/**
 * What the owner's phone sends after scanning: the companion's identity signed with the account
 * key, wrapped in an HMAC keyed with the QR's ADV secret (this is how the phone proves it saw the QR).
 */
export const buildPairSuccess = (qr: CompanionKeys, target: PairTarget, iqId: string): Node => {
  const details = proto.ADVDeviceIdentity.encode({
    rawId: Math.floor(Math.random() * 2 ** 31),
    timestamp: Math.floor(Date.now() / 1000),
    keyIndex: target.keyIndex,
  }).finish();
  const signedMessage = Buffer.concat([WA_ADV_ACCOUNT_SIG_PREFIX, details, qr.identityKey]);
  const signed = proto.ADVSignedDeviceIdentity.encode({
    details,
    accountSignatureKey: target.accountKey.public,
    accountSignature: Curve.sign(target.accountKey.private, signedMessage),
  }).finish();
  const container = proto.ADVSignedDeviceIdentityHMAC.encode({ details: signed, hmac: hmacSign(signed, qr.advSecret) }).finish();
  return {
    tag: 'iq',
    attrs: { from: SERVER_JID, type: 'set', id: iqId, xmlns: 'md', t: nowSeconds() },
    content: [
      {
        tag: 'pair-success',
        attrs: {},
        content: [
          { tag: 'device-identity', attrs: { 'key-index': String(target.keyIndex) }, content: container },
          { tag: 'platform', attrs: { name: 'android' } },
          { tag: 'device', attrs: { jid: target.jid, lid: target.lid } },
        ],
      },
    ],
  };
};

/**
 * The code the person typed reaches the companion: the phone's ephemeral key wrapped with that
 * code, and its identity key (`stage=primary_hello`, WhatsApp Web's name for this step).
 */
export const buildLinkCodeNotification = (ref: string, wrappedEphemeral: Buffer, primaryIdentity: Uint8Array, id: string): Node => ({
  tag: 'notification',
  attrs: { from: SERVER_JID, type: 'link_code_companion_reg', id, t: nowSeconds() },
  content: [
    {
      tag: 'link_code_companion_reg',
      attrs: { stage: 'primary_hello' },
      content: [
        { tag: 'link_code_pairing_ref', attrs: {}, content: Buffer.from(ref) },
        { tag: 'link_code_pairing_wrapped_primary_ephemeral_pub', attrs: {}, content: wrappedEphemeral },
        { tag: 'primary_identity_pub', attrs: {}, content: Buffer.from(primaryIdentity) },
      ],
    },
  ],
});

/**
 * Whether `pair-device-sign` carries the companion's counter-signature. Only its presence is
 * checked: Baileys exports no working XEdDSA verify (its `Curve.verify` accepts anything).
 */
export const hasDeviceSignature = (reply: Node): boolean => {
  const bytes = bytesOf(child(child(reply, 'pair-device-sign'), 'device-identity'));
  if (!bytes) return false;
  const account = proto.ADVSignedDeviceIdentity.decode(bytes);
  return (account.details?.length ?? 0) > 0 && account.deviceSignature?.length === 64;
};
