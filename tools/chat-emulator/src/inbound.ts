import { randomBytes } from 'node:crypto';
import { handOutDeviceBundle } from './bundles.js';
import { signalBundle } from './device-keys.js';
import { EmulatorError } from './errors.js';
import { buildInboundMessage } from './inbound-content.js';
import type { MediaUploader, ReceivedPoll } from './inbound-content.js';
import type { Addressing, InboundSpec } from './inbound-spec.js';
import type { LinkedDevice } from './model.js';
import type { Network } from './network.js';
import { nowSeconds } from './wire.js';

/** What a control call learns about the message it made the contact send. */
export interface SentInbound {
  id: string;
  /** The sender as the linked device saw it (`<lid>@lid` or `<phone>@s.whatsapp.net`). */
  from: string;
  lid: string;
}

const STANZA_TYPE: Record<InboundSpec['kind'], string> = {
  text: 'text', media: 'media', location: 'media', contact: 'media', reaction: 'reaction', pollVote: 'poll', buttonReply: 'text',
};

/**
 * The sender's attributes of a 1:1 message stanza. LID-addressed (as WhatsApp now delivers most
 * chats): `from` is the contact's LID and `sender_pn` its phone number; PN-addressed: `from` is
 * the number and `sender_lid` the LID. Sources: Baileys 7 `extractAddressingContext`
 * (lib/Utils/decode-wa-message.js) and whatsmeow `parseMessageSource` (message.go).
 */
export const senderAttrs = (phone: string, lid: string, addressing: Addressing, alternate = true): Record<string, string> =>
  addressing === 'lid'
    ? { from: `${lid}@lid`, ...(alternate ? { sender_pn: `${phone}@s.whatsapp.net` } : {}), addressing_mode: 'lid' }
    : { from: `${phone}@s.whatsapp.net`, ...(alternate ? { sender_lid: `${lid}@lid` } : {}), addressing_mode: 'pn' };

/**
 * When each message id was first sent: a redelivery (same `id`) keeps its first timestamp, as the
 * network's offline queue does. Bounded; the oldest ids are forgotten first.
 */
const firstSentAt = new Map<string, string>();
const REMEMBERED_IDS = 10_000;
const sentAt = (id: string): string => {
  const known = firstSentAt.get(id);
  if (known) return known;
  const t = nowSeconds();
  firstSentAt.set(id, t);
  if (firstSentAt.size > REMEMBERED_IDS) firstSentAt.delete(firstSentAt.keys().next().value!);
  return t;
};

const accountJid = (device: LinkedDevice, addressing: Addressing): string =>
  addressing === 'lid' ? `${device.lid}@lid` : `${device.phone}@s.whatsapp.net`;

/** The poll `id` that `contact` received from the linked number `account`, with its secret. */
const receivedPoll = (network: Network, contact: string, account: string, id: string): ReceivedPoll | undefined => {
  const message = network.received(contact).findLast((m) => m.id === id && m.from === account);
  if (message?.type !== 'poll' || !message.poll || !message.pollSecret) return undefined;
  return { options: message.poll.options, multipleAnswers: message.poll.multipleAnswers, secret: Buffer.from(message.pollSecret, 'base64') };
};

/**
 * A contact's phone sends one message to a linked account: it encrypts to the account's companion
 * device (starting a Signal session from the device's uploaded keys if it has none) and the
 * network delivers the stanza now, or when the device logs in again.
 */
export const sendInbound = async (network: Network, upload: MediaUploader, from: string, spec: InboundSpec, fallback: Addressing): Promise<SentInbound> => {
  const device = network.devices.get(spec.to);
  if (!device) throw new EmulatorError(404, 'device_not_linked', `no device is linked to ${spec.to}`);
  if (!network.isOnNetwork(from)) throw new EmulatorError(409, 'contact_not_on_network', `${from} is not on the network`);
  const addressing = spec.addressing ?? network.contact(from).addressing ?? fallback;
  const peer = network.peer(from);
  const sentByAccount = (id: string) => network.received(from).some((m) => m.id === id && m.from === spec.to);
  const pollOf = (id: string) => receivedPoll(network, from, spec.to, id);
  const attrs = senderAttrs(from, peer.lid, addressing, spec.alternate ?? true);
  const message = await buildInboundMessage(spec, { accountJid: accountJid(device, addressing), contactJid: attrs.from!, sentByAccount, pollOf }, upload);
  const address = `${device.lid}:${device.deviceId}@lid`;
  if (!(await peer.hasSession(address))) {
    await peer.startSession(address, signalBundle(handOutDeviceBundle(network, device)));
  }
  const { type, ciphertext } = await peer.encrypt(address, message);
  const id = spec.id ?? `3EB0${randomBytes(8).toString('hex').toUpperCase()}`;
  network.deliver(spec.to, {
    tag: 'message',
    attrs: { ...attrs, id, t: sentAt(id), type: STANZA_TYPE[spec.kind], notify: `+${from}` },
    content: [{ tag: 'enc', attrs: { v: '2', type }, content: ciphertext }],
  });
  return { id, from: attrs.from!, lid: `${peer.lid}@lid` };
};
