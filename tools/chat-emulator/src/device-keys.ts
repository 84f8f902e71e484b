import { KEY_BUNDLE_TYPE, encodeBigEndian, generateSignalPubKey } from '@whiskeysockets/baileys';
import type { LinkedDevice } from './model.js';
import type { PreKeyBundle } from './signal-peer.js';
import { bytesOf, child, children } from './wire.js';
import type { Node } from './wire.js';

/** One-time pre-keys kept per device: enough for contacts to start sessions, small at 2,000 accounts. */
const PRE_KEY_SAMPLE = 16;

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
