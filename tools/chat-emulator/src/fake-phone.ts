import { Curve, WA_ADV_ACCOUNT_SIG_PREFIX, hmacSign, proto } from '@whiskeysockets/baileys';
import type { KeyPair } from '@whiskeysockets/baileys';
import { SERVER_JID, child, bytesOf, nowSeconds } from './wire.js';
import type { Node } from './wire.js';

/** The contents of a WhatsApp pairing QR code: `https://wa.me/settings/linked_devices#ref,noise,identity,adv,platform`. */
export interface PairingQr {
  ref: string;
  noiseKey: Buffer;
  identityKey: Buffer;
  advSecret: Buffer;
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
export const buildPairSuccess = (qr: PairingQr, target: PairTarget, iqId: string): Node => {
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
 * Whether `pair-device-sign` carries the companion's counter-signature. Only its presence is
 * checked: Baileys exports no working XEdDSA verify (its `Curve.verify` accepts anything).
 */
export const hasDeviceSignature = (reply: Node): boolean => {
  const bytes = bytesOf(child(child(reply, 'pair-device-sign'), 'device-identity'));
  if (!bytes) return false;
  const account = proto.ADVSignedDeviceIdentity.decode(bytes);
  return (account.details?.length ?? 0) > 0 && account.deviceSignature?.length === 64;
};
