import { resolveJid } from './addressing.js';
import { deviceBundleNode, takeDeviceBundle } from './device-keys.js';
import type { LinkedDevice } from './model.js';
import type { Network } from './network.js';
import { child, children, iqResult } from './wire.js';
import type { Node } from './wire.js';

const bundleFor = (network: Network, self: LinkedDevice, jid: string): Node | undefined => {
  const address = resolveJid(jid);
  if (!address || !network.isOnNetwork(address.phone)) return undefined;
  if (address.device === 0) return network.peer(address.phone).bundleNode(jid);
  const device = network.devices.get(address.phone);
  if (!device || device.deviceId !== address.device || device === self) return undefined;
  const bundle = deviceBundleNode(jid, takeDeviceBundle(device));
  network.changed();
  return bundle;
};

/** Answers a pre-key bundle fetch (`iq xmlns=encrypt type=get <key><user jid/>...`). Unknown users are left out. */
export const answerBundles = (network: Network, self: LinkedDevice, iq: Node): Node => {
  const users = children(child(iq, 'key'), 'user');
  const bundles = users.map((u) => bundleFor(network, self, u.attrs.jid ?? '')).filter((n): n is Node => n !== undefined);
  return iqResult(iq, [{ tag: 'list', attrs: {}, content: bundles }]);
};
