import { createHash } from 'node:crypto';
import { startEmulator, type RunningEmulator } from '@switchboard/chat-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatDriver, ReceiptEvent, SentMessage } from '../driver.js';
import { NotConnectedError, RecipientNotOnNetworkError } from '../errors.js';
import { nextEvent } from '../testing/driver-events.js';
import { ChatFixture, uniquePhone } from '../testing/chat-fixture.js';
import type { ReceivedMessage } from '@switchboard/chat-emulator';
import { waitForReceived } from '../testing/emulator-control.js';
import { pairWithPhone } from '../testing/pair.js';

let emulator: RunningEmulator;
let chat: ChatFixture;
let driver: ChatDriver;
const me = uniquePhone();
const receipts: ReceiptEvent[] = [];

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, controlPort: 0 });
  chat = await ChatFixture.create(emulator);
  driver = chat.driver('ses_messaging');
  driver.on('receipt', (receipt) => receipts.push(receipt));
  await pairWithPhone(driver, chat.control, me);
});
afterAll(async () => {
  await chat?.close();
  await emulator?.stop();
});

async function newContact(): Promise<string> {
  const phone = uniquePhone('1444');
  await chat.control.setContact(phone, { onNetwork: true, deliverAfterMs: 20, readAfterMs: 60 });
  return phone;
}

function receivedBy(contact: string, id: string): Promise<ReceivedMessage> {
  return waitForReceived(chat.control, contact, id);
}

async function receiptsOf(sent: SentMessage): Promise<string[]> {
  const read = (r: ReceiptEvent) => r.id === sent.id && r.status === 'read';
  if (!receipts.some(read)) await nextEvent(driver, 'receipt', read, 10_000);
  return receipts.filter((r) => r.id === sent.id).map((r) => r.status);
}

describe('sending through a connected session', () => {
  it('delivers a text, acknowledged by the network, then delivered and read', async () => {
    const contact = await newContact();
    const sent = await driver.sendText(contact, 'Hello from Switchboard ✓');
    expect(sent.timestamp).toBeInstanceOf(Date);
    expect(await receivedBy(contact, sent.id)).toMatchObject({ from: me, type: 'text', text: 'Hello from Switchboard ✓' });
    expect(await receiptsOf(sent)).toEqual(['delivered', 'read']);
  });

  it('issues its privacy token to a contact once, not with every message (Baileys patched, see patches/)', async () => {
    const contact = await newContact();
    const before = (await chat.control.device(me)).privacyTokensIssued;
    for (const text of ['first', 'second', 'third']) {
      const sent = await driver.sendText(contact, text);
      await receivedBy(contact, sent.id);
      // The issue follows the send without being awaited: give it time to land before the next.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect((await chat.control.device(me)).privacyTokensIssued - before).toBe(1);
  });

  it('quotes the message it replies to', async () => {
    const contact = await newContact();
    const first = await driver.sendText(contact, 'first');
    const reply = await driver.sendText(contact, 'second', { quotedId: first.id });
    expect(await receivedBy(contact, reply.id)).toMatchObject({ text: 'second', quotedId: first.id });
  });

  it.each([
    ['image', 'image/png', 'a caption', undefined],
    ['video', 'video/mp4', 'a video caption', undefined],
    ['document', 'application/pdf', 'the contract', 'contract.pdf'],
    ['audio', 'audio/ogg', undefined, undefined],
  ] as const)('delivers %s media with its exact bytes, caption and filename', async (kind, mimetype, caption, filename) => {
    const contact = await newContact();
    const bytes = Buffer.from(`${kind} bytes ${'x'.repeat(3000)} ${Math.random()}`);
    const sent = await driver.sendMedia(contact, { kind, bytes, mimetype, ...(caption ? { caption } : {}), ...(filename ? { filename } : {}) });
    const received = await receivedBy(contact, sent.id);
    expect(received).toMatchObject({ type: kind, mimetype, sha256: createHash('sha256').update(bytes).digest('hex') });
    if (caption) expect(received.caption).toBe(caption);
    if (filename) expect(received.filename).toBe(filename);
    expect(await receiptsOf(sent)).toEqual(['delivered', 'read']);
  });

  it('delivers a location with its coordinates, name and address', async () => {
    const contact = await newContact();
    const sent = await driver.sendLocation(contact, { latitude: 52.520008, longitude: 13.404954, name: 'Berlin', address: 'Alexanderplatz 1' });
    expect(await receivedBy(contact, sent.id)).toMatchObject({
      type: 'location', latitude: 52.520008, longitude: 13.404954, name: 'Berlin', address: 'Alexanderplatz 1',
    });
    expect(await receiptsOf(sent)).toEqual(['delivered', 'read']);
  });

  it('delivers reply buttons with their ids, texts and footer', async () => {
    const contact = await newContact();
    const buttons = [{ id: 'yes', text: 'Yes' }, { id: 'no', text: 'No' }, { id: 'later', text: 'Ask me later' }];
    const sent = await driver.sendButtons(contact, { text: 'Confirm the booking?', buttons, footer: 'Switchboard' });
    expect(await receivedBy(contact, sent.id)).toMatchObject({ type: 'buttons', text: 'Confirm the booking?', buttons, footer: 'Switchboard' });
    expect(await receiptsOf(sent)).toEqual(['delivered', 'read']);
  });

  it('refuses a recipient who is not on the network', async () => {
    const stranger = uniquePhone('1333');
    await chat.control.setContact(stranger, { onNetwork: false, deliverAfterMs: null, readAfterMs: null });
    expect(await driver.lookupContact(stranger)).toEqual({ onWhatsApp: false });
    await expect(driver.sendText(stranger, 'hello?')).rejects.toThrow(RecipientNotOnNetworkError);
  });

  it('reports a contact message as inbound, from that contact', async () => {
    const contact = await newContact();
    await driver.sendText(contact, 'write back');
    const inbound = nextEvent(driver, 'inbound', (message) => message.from === contact);
    await chat.control.inbound(contact, me, 'a reply from the contact');
    expect(await inbound).toMatchObject({ from: contact, fromLid: `9${contact}`, content: { type: 'text', text: 'a reply from the contact' } });
  });

  it('downloads a received image through the connection, byte for byte, and names a quoted message', async () => {
    const contact = await newContact();
    const sent = await driver.sendText(contact, 'send me a picture');
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const inbound = nextEvent(driver, 'inbound', (message) => message.from === contact);
    await chat.control.send(contact, { to: me, image: { base64: png.toString('base64'), caption: 'here', mimetype: 'image/png' }, quotedMessageId: sent.id });
    const event = await inbound;
    expect(event).toMatchObject({ quotedId: sent.id, content: { type: 'media', media: { kind: 'image', mimetype: 'image/png', caption: 'here' } } });
    expect(event.content.type === 'media' && Buffer.from(event.content.media.bytes).equals(png)).toBe(true);
  });

  it('refuses to send from a session that is not connected', async () => {
    const idle = chat.driver('ses_never_started');
    await expect(idle.sendText(uniquePhone(), 'x')).rejects.toThrow(NotConnectedError);
  });
});
