import { randomBytes } from 'node:crypto';
import { KEY_BUNDLE_TYPE, S_WHATSAPP_NET, encodeBigEndian, generateSignalPubKey } from '@whiskeysockets/baileys';
import type { LinkedDevice } from './model.js';
import type { PreKeyBundle } from './signal-peer.js';
import { bytesOf, child, children, nowSeconds } from './wire.js';
import type { Node } from './wire.js';

/**
 * One-time pre-keys kept per device: all of a batch of 50 (whatsmeow's, and Switchboard's first
 * upload), small at 2,000 accounts. Of an upload of 812 (Baileys, WhatsApp Web) the rest is counted only.
 */
const PRE_KEY_SAMPLE = 64;

/**
 * Below this many one-time pre-keys the network tells the device after handing one out. The real
 * threshold is not public; Baileys (MIN_PREKEY_COUNT) and whatsmeow (MinPreKeyCount) both upload
 * more only when the count they are told is under 5, so the network must tell them then.
 */
export const PRE_KEYS_LOW = 5;

const uint = (node: Node | undefined): number | undefined => {
  const bytes = bytesOf(node);
  return bytes && bytes.length > 0 && bytes.length <= 4 ? bytes.readUIntBE(0, bytes.length) : undefined;
};

const hexOf = (node: Node | undefined): string | undefined => bytesOf(node)?.toString('hex');

/** Applies a signed pre-key node (`<skey><id/><value/><signature/></skey>`) to the device. */
export const applySignedPreKey = (device: LinkedDevice, skey: Node | undefined): void => {
  const keyId = uint(child(skey, 'id'));
  const publicKey = hexOf(child(skey, 'value'));
  const signature = hexOf(child(skey, 'signature'));
  if (keyId !== undefined && publicKey && signature) device.signedPreKey = { keyId, publicKey, signature };
};

/** Stores a pre-key upload (`iq xmlns=encrypt type=set` with registration, identity, list, skey). */
export const applyPreKeyUpload = (device: LinkedDevice, upload: Node): number => {
  const registrationId = uint(child(upload, 'registration'));
  if (registrationId !== undefined) device.registrationId = registrationId;
  device.identityKey = hexOf(child(upload, 'identity')) ?? device.identityKey;
  applySignedPreKey(device, child(upload, 'skey'));
  const keys = children(child(upload, 'list'), 'key');
  for (const key of keys) {
    if (device.preKeys.length >= PRE_KEY_SAMPLE) break;
    const keyId = uint(child(key, 'id'));
    const publicKey = hexOf(child(key, 'value'));
    if (keyId !== undefined && publicKey) device.preKeys.push({ keyId, publicKey });
  }
  device.preKeyCount += keys.length;
  return keys.length;
};

/** Takes the device's bundle, consuming one one-time pre-key as the real server does. */
export const takeDeviceBundle = (device: LinkedDevice): PreKeyBundle => {
  const preKey = device.preKeys.shift();
  if (preKey) device.preKeyCount = Math.max(0, device.preKeyCount - 1);
  return {
    registrationId: device.registrationId,
    identityKey: Buffer.from(device.identityKey, 'hex'),
    signedPreKey: {
      keyId: device.signedPreKey.keyId,
      publicKey: Buffer.from(device.signedPreKey.publicKey, 'hex'),
      signature: Buffer.from(device.signedPreKey.signature, 'hex'),
    },
    ...(preKey ? { preKey: { keyId: preKey.keyId, publicKey: Buffer.from(preKey.publicKey, 'hex') } } : {}),
  };
};

/**
 * `<notification type="encrypt" from="@s.whatsapp.net"><count value=N/></notification>`: the pre-key
 * count the network sends a device running low (Baileys `handleEncryptNotification`,
 * lib/Socket/messages-recv.js; whatsmeow `handleEncryptNotification`, notification.go). `from` is
 * the server's JID with no user, as the network encodes it (a JID pair): Baileys reads it as
 * `@s.whatsapp.net` and acts only on that.
 */
export const preKeyCountNotification = (count: number): Node => ({
  tag: 'notification',
  attrs: { from: S_WHATSAPP_NET, type: 'encrypt', id: randomBytes(8).toString('hex').toUpperCase(), t: nowSeconds() },
  content: [{ tag: 'count', attrs: { value: String(count) } }],
});

/** The same bundle with libsignal's 33-byte (type-prefixed) public keys, for starting a session locally. */
export const signalBundle = (bundle: PreKeyBundle): PreKeyBundle => ({
  registrationId: bundle.registrationId,
  identityKey: generateSignalPubKey(bundle.identityKey),
  signedPreKey: { ...bundle.signedPreKey, publicKey: generateSignalPubKey(bundle.signedPreKey.publicKey) },
  ...(bundle.preKey ? { preKey: { keyId: bundle.preKey.keyId, publicKey: generateSignalPubKey(bundle.preKey.publicKey) } } : {}),
});

export const deviceBundleNode = (jid: string, bundle: PreKeyBundle): Node => ({
  tag: 'user',
  attrs: { jid },
  content: [
    { tag: 'registration', attrs: {}, content: encodeBigEndian(bundle.registrationId) },
    { tag: 'type', attrs: {}, content: KEY_BUNDLE_TYPE },
    { tag: 'identity', attrs: {}, content: bundle.identityKey },
    {
      tag: 'skey',
      attrs: {},
      content: [
        { tag: 'id', attrs: {}, content: encodeBigEndian(bundle.signedPreKey.keyId, 3) },
        { tag: 'value', attrs: {}, content: bundle.signedPreKey.publicKey },
        { tag: 'signature', attrs: {}, content: bundle.signedPreKey.signature },
      ],
    },
    ...(bundle.preKey
      ? [
          {
            tag: 'key',
            attrs: {},
            content: [
              { tag: 'id', attrs: {}, content: encodeBigEndian(bundle.preKey.keyId, 3) },
              { tag: 'value', attrs: {}, content: bundle.preKey.publicKey },
            ],
          },
        ]
      : []),
  ],
});
