import { randomBytes } from 'node:crypto';
import { signalBundle, takeDeviceBundle } from './device-keys.js';
import { EmulatorError } from './errors.js';
import type { Network } from './network.js';
import { nowSeconds } from './wire.js';

/**
 * A contact's phone sends a text to a linked account: it encrypts to the account's companion
 * device (starting a Signal session from the device's uploaded keys if it has none) and the
 * network delivers the stanza now, or when the device logs in again.
 */
export const sendInbound = async (network: Network, from: string, to: string, text: string): Promise<string> => {
  const device = network.devices.get(to);
  if (!device) throw new EmulatorError(404, 'device_not_linked', `no device is linked to ${to}`);
  if (!network.isOnNetwork(from)) throw new EmulatorError(409, 'contact_not_on_network', `${from} is not on the network`);
  const peer = network.peer(from);
  const address = `${device.lid}:${device.deviceId}@lid`;
  if (!(await peer.hasSession(address))) {
    await peer.startSession(address, signalBundle(takeDeviceBundle(device)));
    network.changed();
  }
  const { type, ciphertext } = await peer.encrypt(address, { conversation: text });
  const id = `3EB0${randomBytes(8).toString('hex').toUpperCase()}`;
  network.deliver(to, {
    tag: 'message',
    attrs: { from: `${from}@s.whatsapp.net`, sender_lid: `${peer.lid}@lid`, id, t: nowSeconds(), type: 'text', notify: `+${from}` },
    content: [{ tag: 'enc', attrs: { v: '2', type }, content: ciphertext }],
  });
  return id;
};
