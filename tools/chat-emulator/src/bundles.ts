import { resolveJid } from './addressing.js';
import { PRE_KEYS_LOW, deviceBundleNode, preKeyCountNotification, takeDeviceBundle } from './device-keys.js';
import type { LinkedDevice } from './model.js';
import type { Network } from './network.js';
import type { PreKeyBundle } from './signal-peer.js';
import { child, children, iqResult } from './wire.js';
import type { Node } from './wire.js';

/**
 * Hands out a companion device's bundle, using up one of its one-time pre-keys, and tells the
 * device the count when few are left so that it uploads more. An offline device is not told: it
 * asks for the count itself when it logs in.
 */
export const handOutDeviceBundle = (network: Network, device: LinkedDevice): PreKeyBundle => {
  const bundle = takeDeviceBundle(device);
  network.deviceChanged(device.phone);
  if (bundle.preKey && device.preKeyCount < PRE_KEYS_LOW) network.online.get(device.phone)?.send(preKeyCountNotification(device.preKeyCount));
  return bundle;
};

const bundleFor = (network: Network, self: LinkedDevice, jid: string): Node | undefined => {
  const address = resolveJid(jid);
  if (!address || !network.isOnNetwork(address.phone)) return undefined;
  if (address.device === 0) return network.peer(address.phone).bundleNode(jid);
  const device = network.devices.get(address.phone);
  if (!device || device.deviceId !== address.device || device === self) return undefined;
  return deviceBundleNode(jid, handOutDeviceBundle(network, device));
};

/** Answers a pre-key bundle fetch (`iq xmlns=encrypt type=get <key><user jid/>...`). Unknown users are left out. */
export const answerBundles = (network: Network, self: LinkedDevice, iq: Node): Node => {
  const users = children(child(iq, 'key'), 'user');
  const bundles = users.map((u) => bundleFor(network, self, u.attrs.jid ?? '')).filter((n): n is Node => n !== undefined);
  return iqResult(iq, [{ tag: 'list', attrs: {}, content: bundles }]);
};
