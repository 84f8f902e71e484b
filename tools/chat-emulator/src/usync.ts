import { resolveJid } from './addressing.js';
import { lidForPhone } from './model.js';
import type { LinkedDevice } from './model.js';
import type { Network } from './network.js';
import { child, iqResult } from './wire.js';
import type { Node } from './wire.js';

/** The user a usync `<user>` asks about: by jid, or by phone number in `<contact>+123</contact>`. */
const requestedUser = (user: Node): { jid: string; phone: string } | undefined => {
  if (user.attrs.jid) {
    const address = resolveJid(user.attrs.jid);
    return address ? { jid: user.attrs.jid, phone: address.phone } : undefined;
  }
  const contact = child(user, 'contact');
  const raw = typeof contact?.content === 'string' ? contact.content : contact?.content instanceof Uint8Array ? Buffer.from(contact.content).toString() : '';
  const phone = raw.replace(/[^0-9]/g, '');
  return phone ? { jid: `${phone}@s.whatsapp.net`, phone } : undefined;
};

/**
 * Devices of a number. The account owner gets its primary phone (device 0) AND its companion:
 * without device 0 Baileys caches nothing for its own account and re-keys the phone on every send.
 * Other numbers list their primary phone only.
 */
const deviceList = (network: Network, phone: string, self: LinkedDevice): Node[] => {
  if (!network.isOnNetwork(phone)) return [];
  const devices: Node[] = [{ tag: 'device', attrs: { id: '0' } }];
  if (phone === self.phone) devices.push({ tag: 'device', attrs: { id: String(self.deviceId), 'key-index': String(self.keyIndex) } });
  return devices;
};

const protocolAnswer = (network: Network, protocol: string, phone: string, self: LinkedDevice): Node | undefined => {
  const onNetwork = network.isOnNetwork(phone);
  switch (protocol) {
    case 'devices':
      return { tag: 'devices', attrs: {}, content: [{ tag: 'device-list', attrs: {}, content: deviceList(network, phone, self) }] };
    case 'lid':
      return onNetwork ? { tag: 'lid', attrs: { val: `${lidForPhone(phone)}@lid` } } : undefined;
    case 'contact':
      return { tag: 'contact', attrs: { type: onNetwork ? 'in' : 'out' } };
    default:
      return undefined;
  }
};

/** Answers `iq xmlns=usync`: devices, LID and contact (on WhatsApp or not) per requested user. */
export const answerUsync = (network: Network, self: LinkedDevice, iq: Node): Node => {
  const usync = child(iq, 'usync');
  const query = child(usync, 'query');
  const protocols = Array.isArray(query?.content) ? query.content.map((p) => p.tag) : [];
  const requested = child(usync, 'list');
  const users: Node[] = [];
  for (const user of Array.isArray(requested?.content) ? requested.content : []) {
    const target = requestedUser(user);
    if (!target) continue;
    const answers = protocols.map((p) => protocolAnswer(network, p, target.phone, self)).filter((n): n is Node => n !== undefined);
    users.push({ tag: 'user', attrs: { jid: target.jid }, content: answers });
  }
  const attrs = { sid: usync?.attrs.sid ?? '', index: '0', last: 'true' };
  return iqResult(iq, [{ tag: 'usync', attrs, content: [{ tag: 'list', attrs: {}, content: users }] }]);
};

