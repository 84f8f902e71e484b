import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { WASocket } from '@whiskeysockets/baileys';
import { EmulatorControlClient, startEmulator } from '../src/index.js';
import type { ReceivedMessage, RunningEmulator } from '../src/index.js';
import type { TestClient } from './support/baileys-client.js';
import { waitForEvent } from './support/baileys-client.js';
import { linkClient } from './support/pairing.js';
import { Status, newMessageId, until, waitForStatus } from './support/status.js';

const ME = '15550002222';
const jid = (phone: string): string => `${phone}@s.whatsapp.net`;

describe('sending to contacts', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;
  let client: TestClient;
  let sock: WASocket;

  const received = (phone: string, id: string): Promise<ReceivedMessage> =>
    until(async () => (await control.messages(phone)).find((m) => m.id === id));

  beforeAll(async () => {
    emulator = await startEmulator();
    control = new EmulatorControlClient(emulator.controlUrl);
    ({ client, sock } = await linkClient(emulator, control, ME));
  });
  afterAll(async () => {
    client.end();
    await emulator.stop();
  });

  it('a contact decrypts a text exactly, then delivery and read receipts arrive on its schedule', async () => {
    await control.setContact('15551110001', { onNetwork: true, deliverAfterMs: 200, readAfterMs: 600 });
    const id = newMessageId();
    const delivered = waitForStatus(sock, id, Status.DELIVERY_ACK);
    const read = waitForStatus(sock, id, Status.READ);
    const sentAt = Date.now();
    await sock.sendMessage(jid('15551110001'), { text: 'hello from switchboard' }, { messageId: id });
    expect(await received('15551110001', id)).toMatchObject({ id, from: ME, type: 'text', text: 'hello from switchboard' });
    expect((await delivered) - sentAt).toBeGreaterThanOrEqual(150);
    expect((await read) - sentAt).toBeGreaterThanOrEqual(550);
  });

  it('a contact decrypts location, image (sha256 of the plaintext), document, buttons (classic and native flow) and quotes exactly', async () => {
    const to = jid('15551110002');
    const location = await sock.sendMessage(to, { location: { degreesLatitude: 52.52, degreesLongitude: 13.405, name: 'Berlin', address: 'Alexanderplatz' } });
    if (!location) throw new Error('location not sent');
    expect(await received('15551110002', location.key.id ?? '')).toMatchObject({ type: 'location', latitude: 52.52, longitude: 13.405, name: 'Berlin', address: 'Alexanderplatz' });

    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
    const image = await sock.sendMessage(to, { image: png, caption: 'a pixel' });
    expect(await received('15551110002', image?.key.id ?? '')).toMatchObject({
      type: 'image', caption: 'a pixel', mimetype: 'image/jpeg', sha256: createHash('sha256').update(png).digest('hex'),
    });

    const pdf = Buffer.from('%PDF-1.4 switchboard test document');
    const document = await sock.sendMessage(to, { document: pdf, mimetype: 'application/pdf', fileName: 'invoice.pdf' });
    expect(await received('15551110002', document?.key.id ?? '')).toMatchObject({
      type: 'document', filename: 'invoice.pdf', mimetype: 'application/pdf', sha256: createHash('sha256').update(pdf).digest('hex'),
    });

    const buttons = { contentText: 'Pick one', footerText: 'Switchboard', headerType: 1, buttons: [{ buttonId: 'yes', buttonText: { displayText: 'Yes' }, type: 1 }, { buttonId: 'no', buttonText: { displayText: 'No' }, type: 1 }] };
    const buttonsId = await sock.relayMessage(to, { buttonsMessage: buttons }, {});
    expect(await received('15551110002', buttonsId)).toMatchObject({
      type: 'buttons', text: 'Pick one', footer: 'Switchboard', buttons: [{ id: 'yes', text: 'Yes' }, { id: 'no', text: 'No' }],
    });

    const nativeFlow = {
      body: { text: 'Confirm?' },
      footer: { text: 'Reply below' },
      nativeFlowMessage: { buttons: [{ name: 'quick_reply', buttonParamsJson: JSON.stringify({ display_text: 'OK', id: 'ok' }) }] },
    };
    const interactiveId = await sock.relayMessage(to, { viewOnceMessage: { message: { interactiveMessage: nativeFlow } } }, {});
    expect(await received('15551110002', interactiveId)).toMatchObject({ type: 'buttons', text: 'Confirm?', footer: 'Reply below', buttons: [{ id: 'ok', text: 'OK' }] });

    const quoted = await sock.sendMessage(to, { text: 'about that' }, { quoted: location });
    expect(await received('15551110002', quoted?.key.id ?? '')).toMatchObject({ type: 'text', text: 'about that', quotedId: location.key.id });
  });

  it('hands out a fresh one-time pre-key per bundle: a forced re-key still decrypts', async () => {
    const to = jid('15551110003');
    const first = await sock.sendMessage(to, { text: 'one' });
    await received('15551110003', first?.key.id ?? '');
    await sock.assertSessions([to], true);
    const second = await sock.sendMessage(to, { text: 'two' });
    expect(await received('15551110003', second?.key.id ?? '')).toMatchObject({ text: 'two' });
    expect((await control.health()).messages.failed).toBe(0);
  });

  it('a contact with receipts set to never stays at the server ack', async () => {
    await control.setContact('15551110004', { onNetwork: true, deliverAfterMs: null, readAfterMs: null });
    const sent = await sock.sendMessage(jid('15551110004'), { text: 'anyone?' });
    await received('15551110004', sent?.key.id ?? '');
    await expect(waitForStatus(sock, sent?.key.id ?? '', Status.DELIVERY_ACK, 800)).rejects.toThrow(/timed out/);
  });

  it('tells the client which numbers are not on the network', async () => {
    await control.setContact('15551110005', { onNetwork: false, deliverAfterMs: 100, readAfterMs: 1000 });
    expect(await sock.onWhatsApp('15551110005')).toEqual([]);
    expect(await sock.onWhatsApp('15551110006')).toEqual([{ jid: jid('15551110006'), exists: true }]);
    const sent = await sock.sendMessage(jid('15551110005'), { text: 'into the void' });
    await expect(waitForStatus(sock, sent?.key.id ?? '', Status.DELIVERY_ACK, 500)).rejects.toThrow(/timed out/);
    expect(await control.messages('15551110005')).toEqual([]);
  });

  it('delivers a message from a contact to the linked device, before and after a conversation exists', async () => {
    for (const [from, text] of [['15551110007', 'first contact'], ['15551110001', 'reply to you']] as const) {
      const upsert = waitForEvent(sock.ev, 'messages.upsert', ({ messages }) => messages.find((m) => !m.key.fromMe && m.message?.conversation === text));
      const { id } = await control.inbound(from, ME, text);
      const message = await upsert;
      // LID-addressed by default, as the network now does: the LID, with the number beside it.
      expect(message.key).toMatchObject({ id, remoteJid: `9${from}@lid`, remoteJidAlt: jid(from) });
    }
  });
});
