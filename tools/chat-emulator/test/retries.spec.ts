import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getBinaryNodeChild } from '@whiskeysockets/baileys';
import type { BinaryNode, WAMessageKey, WASocket, proto } from '@whiskeysockets/baileys';
import { EmulatorControlClient, startEmulator } from '../src/index.js';
import type { RunningEmulator } from '../src/index.js';
import type { TestClient } from './support/baileys-client.js';
import { linkClient } from './support/pairing.js';
import { Status, newMessageId, until, waitForStatus } from './support/status.js';

const jid = (phone: string): string => `${phone}@s.whatsapp.net`;

/**
 * Contacts whose phone fails to decrypt: the real Baileys client gets a retry receipt per failed
 * copy and answers it with the message again (same id) from its `getMessage`, until the contact
 * shows it once and the delivery receipt follows.
 */
describe.each(['lid', 'pn'] as const)('retry receipts (%s addressing)', (addressing) => {
  const me = addressing === 'lid' ? '15550007001' : '15550007002';
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;
  let client: TestClient;
  let sock: WASocket;
  /** The client's own record of what it sent, as an application keeps it for `getMessage`. */
  const sent = new Map<string, proto.IMessage>();
  const receipts: BinaryNode[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({ addressing });
    control = new EmulatorControlClient(emulator.controlUrl);
    const getMessage = async (key: WAMessageKey) => sent.get(key.id ?? '');
    ({ client, sock } = await linkClient(emulator, control, me, { getMessage }));
    sock.ws.on('CB:receipt', (node: BinaryNode) => receipts.push(node));
  });
  afterAll(async () => {
    client.end();
    await emulator.stop();
  });

  const send = async (to: string, text: string): Promise<string> => {
    const id = newMessageId();
    const message = await sock.sendMessage(jid(to), { text }, { messageId: id });
    if (message?.message) sent.set(id, message.message);
    return id;
  };
  const retriesOf = (id: string) => receipts.filter((r) => r.attrs.id === id && r.attrs.type === 'retry');

  it('asks again for each of the next N copies it fails to decrypt, then shows the message once and reports it delivered', async () => {
    const contact = addressing === 'lid' ? '15551117001' : '15551117002';
    await control.setContact(contact, { deliverAfterMs: 50, readAfterMs: null, failDecryptNext: 2 });
    const failedBefore = (await control.health()).messages.failed;
    const id = newMessageId();
    const delivered = waitForStatus(sock, id, Status.DELIVERY_ACK, 15_000);
    const message = await sock.sendMessage(jid(contact), { text: 'third time lucky' }, { messageId: id });
    sent.set(id, message!.message!);
    await delivered;
    const shown = await until(async () => (await control.messages(contact)).find((m) => m.id === id));
    expect(shown).toMatchObject({ text: 'third time lucky', repeats: 0 });
    expect((await control.health()).messages.failed - failedBefore).toBe(2);

    const retries = retriesOf(id);
    const contactJid = addressing === 'lid' ? `9${contact}@lid` : jid(contact);
    expect(retries.map((r) => [r.attrs.from, getBinaryNodeChild(r, 'retry')?.attrs.count])).toEqual([[contactJid, '1'], [contactJid, '2']]);
    // Registration always; the keys for a new session from the second request on.
    expect(retries.map((r) => [Boolean(getBinaryNodeChild(r, 'registration')), Boolean(getBinaryNodeChild(r, 'keys'))])).toEqual([[true, false], [true, true]]);
    expect(await control.setContact(contact, { deliverAfterMs: 50, readAfterMs: null })).toMatchObject({ failDecryptNext: 0 });
  });

  it('names the contact in its receipts by LID in lid addressing, by the number sent to in pn', async () => {
    const contact = addressing === 'lid' ? '15551117003' : '15551117004';
    await control.setContact(contact, { deliverAfterMs: 20, readAfterMs: 40 });
    const id = newMessageId();
    const read = waitForStatus(sock, id, Status.READ);
    await sock.sendMessage(jid(contact), { text: 'who reads this?' }, { messageId: id });
    await read;
    const from = receipts.filter((r) => r.attrs.id === id).map((r) => r.attrs.from);
    expect(from).toEqual(addressing === 'lid' ? [`9${contact}@lid`, `9${contact}@lid`] : [jid(contact), jid(contact)]);
  });

  it('gets nothing shown when the sender cannot find the message again, and no delivery receipt', async () => {
    const contact = addressing === 'lid' ? '15551117005' : '15551117006';
    await control.setContact(contact, { deliverAfterMs: 20, readAfterMs: null, failDecryptNext: 1 });
    const id = newMessageId();
    await sock.sendMessage(jid(contact), { text: 'forgotten by the sender' }, { messageId: id });
    await until(async () => (retriesOf(id).length > 0 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await control.messages(contact)).toEqual([]);
    expect(receipts.filter((r) => r.attrs.id === id && r.attrs.type !== 'retry')).toEqual([]);
  });

  it("stays undelivered past Baileys' two resends per message", async () => {
    const contact = addressing === 'lid' ? '15551117009' : '15551117010';
    await control.setContact(contact, { deliverAfterMs: 10, readAfterMs: null, failDecryptNext: 3 });
    const id = await send(contact, 'asked for three times');
    await until(async () => (retriesOf(id).length >= 3 ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(retriesOf(id)).toHaveLength(3);
    expect(await control.messages(contact)).toEqual([]);
  });

  it('fails the copies its rate says', async () => {
    const contact = addressing === 'lid' ? '15551117007' : '15551117008';
    await control.setContact(contact, { deliverAfterMs: 10, readAfterMs: null, failDecryptRate: 1 });
    const id = await send(contact, 'never readable');
    await until(async () => (retriesOf(id).length >= 2 ? true : undefined));
    expect(await control.messages(contact)).toEqual([]);
  });
});
