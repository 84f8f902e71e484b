import { createDecipheriv, createHash } from 'node:crypto';
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getMediaKeys, normalizeMessageContent } from '@whiskeysockets/baileys';
import type { MediaType, WAMessage, WASocket, proto } from '@whiskeysockets/baileys';
import { EmulatorControlClient, EmulatorControlError, startEmulator } from '../src/index.js';
import type { InboundBody, RunningEmulator } from '../src/index.js';
import type { TestClient } from './support/baileys-client.js';
import { waitForEvent } from './support/baileys-client.js';
import { linkClient } from './support/pairing.js';
import { newMessageId, until } from './support/status.js';

const ME = '15550003333';
const CONTACT = '15551230001';
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('contacts send every inbound kind', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;
  let client: TestClient;
  let sock: WASocket;

  /** Sends through the control API and resolves with the message as the linked Baileys client got it. */
  const deliver = async (body: Omit<InboundBody, 'to'> & Record<string, unknown>, from = CONTACT): Promise<WAMessage> => {
    // Chosen up front: the message can reach the client before the control call answers.
    const id = (body.id as string | undefined) ?? newMessageId();
    const upsert = waitForEvent(sock.ev, 'messages.upsert', ({ messages }) => messages.find((m) => m.key.id === id));
    expect((await control.send(from, { to: ME, ...body, id } as InboundBody)).id).toBe(id);
    return upsert;
  };

  /** Downloads and decrypts a media message as a recipient does, over HTTPS from the media host. */
  const download = async (media: proto.Message.IImageMessage, kind: MediaType): Promise<Buffer> => {
    const blob = await new Promise<Buffer>((resolve, reject) => {
      const req = request(media.url ?? '', { ca: emulator.mediaCertificatePem }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks))).on('error', reject);
      });
      req.on('error', reject).end();
    });
    const { iv, cipherKey } = await getMediaKeys(media.mediaKey, kind);
    const decipher = createDecipheriv('aes-256-cbc', cipherKey, iv);
    return Buffer.concat([decipher.update(blob.subarray(0, -10)), decipher.final()]);
  };

  beforeAll(async () => {
    emulator = await startEmulator();
    control = new EmulatorControlClient(emulator.controlUrl);
    ({ client, sock } = await linkClient(emulator, control, ME));
  });
  afterAll(async () => {
    client.end();
    await emulator.stop();
  });

  it('addresses the sender by LID with its number beside it, or by number on request', async () => {
    const byLid = await deliver({ text: 'by lid' });
    expect(byLid.key).toMatchObject({ remoteJid: `9${CONTACT}@lid`, remoteJidAlt: `${CONTACT}@s.whatsapp.net`, addressingMode: 'lid' });
    const byPn = await deliver({ text: 'by number', addressing: 'pn' });
    expect(byPn.key).toMatchObject({ remoteJid: `${CONTACT}@s.whatsapp.net`, remoteJidAlt: `9${CONTACT}@lid` });
    const viaLidPath = await deliver({ text: 'named by lid' }, `9${CONTACT}@lid`);
    expect(viaLidPath.key.remoteJidAlt).toBe(`${CONTACT}@s.whatsapp.net`);
  });

  it('media is encrypted and hosted: the recipient downloads and decrypts the very bytes', async () => {
    const cases = [
      { body: { image: { base64: PNG.toString('base64'), caption: 'a pixel', mimetype: 'image/png' } }, field: 'imageMessage', kind: 'image' },
      { body: { document: { base64: Buffer.from('%PDF-1.4 x').toString('base64'), filename: 'a.pdf', mimetype: 'application/pdf' } }, field: 'documentMessage', kind: 'document' },
      { body: { audio: { base64: Buffer.from('OggS voice').toString('base64'), ptt: true } }, field: 'audioMessage', kind: 'audio' },
      { body: { sticker: { base64: Buffer.from('RIFF....WEBP').toString('base64') } }, field: 'stickerMessage', kind: 'sticker' },
    ] as const;
    for (const c of cases) {
      const message = await deliver(c.body);
      const media = normalizeMessageContent(message.message)?.[c.field] as proto.Message.IImageMessage & { ptt?: boolean; fileName?: string };
      const sent = Object.values(c.body)[0] as { base64: string; caption?: string; filename?: string };
      const bytes = await download(media, c.kind);
      expect(sha256(bytes)).toBe(sha256(Buffer.from(sent.base64, 'base64')));
      expect(Buffer.from(media.fileSha256 ?? []).toString('hex')).toBe(sha256(bytes));
      if (sent.caption) expect(media.caption).toBe(sent.caption);
      if (sent.filename) expect(media.fileName).toBe(sent.filename);
    }
  });

  it('location, contact card, quoted reply, reaction, poll vote and button reply', async () => {
    const ours = await sock.sendMessage(`${CONTACT}@s.whatsapp.net`, { text: 'pick one' });
    const oursId = ours?.key.id ?? '';
    await until(async () => ((await control.messages(CONTACT)).some((m) => m.id === oursId) ? true : undefined));

    const location = normalizeMessageContent((await deliver({ location: { latitude: 52.52, longitude: 13.405, name: 'Berlin' } })).message);
    expect(location?.locationMessage).toMatchObject({ degreesLatitude: 52.52, degreesLongitude: 13.405, name: 'Berlin' });
    const contact = normalizeMessageContent((await deliver({ contact: { displayName: 'Ada', vcard: 'BEGIN:VCARD\nFN:Ada\nEND:VCARD' } })).message);
    expect(contact?.contactMessage).toMatchObject({ displayName: 'Ada', vcard: 'BEGIN:VCARD\nFN:Ada\nEND:VCARD' });
    const reply = normalizeMessageContent((await deliver({ text: 'this one', quotedMessageId: oursId })).message);
    expect(reply?.extendedTextMessage).toMatchObject({ text: 'this one', contextInfo: { stanzaId: oursId } });
    // Baileys turns the reaction's key to our side: the reacted message is ours (fromMe).
    const reaction = normalizeMessageContent((await deliver({ reaction: { messageId: oursId, emoji: '👍' } })).message);
    expect(reaction?.reactionMessage).toMatchObject({ text: '👍', key: { id: oursId, fromMe: true } });
    const vote = normalizeMessageContent((await deliver({ pollVote: { pollMessageId: oursId, options: ['Yes'] } })).message);
    expect(vote?.pollUpdateMessage?.pollCreationMessageKey).toMatchObject({ id: oursId });
    expect(vote?.pollUpdateMessage?.vote?.encPayload?.length).toBeGreaterThan(16);
    const button = normalizeMessageContent((await deliver({ buttonReply: { id: 'yes', text: 'Yes' }, quotedMessageId: oursId })).message);
    expect(button?.buttonsResponseMessage).toMatchObject({ selectedButtonId: 'yes', selectedDisplayText: 'Yes', contextInfo: { stanzaId: oursId } });
  });

  it('a redelivery of one id keeps its timestamp; bad bodies are refused', async () => {
    const first = await deliver({ text: 'twice', id: '3EB0AAAABBBBCCCCDDDD' });
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const again = waitForEvent(sock.ev, 'messages.upsert', ({ messages }) => messages.find((m) => m.key.id === '3EB0AAAABBBBCCCCDDDD'));
    await control.send(CONTACT, { to: ME, text: 'twice', id: '3EB0AAAABBBBCCCCDDDD' });
    expect(Number((await again).messageTimestamp)).toBe(Number(first.messageTimestamp));
    for (const body of [{ to: ME }, { to: ME, text: 'a', location: { latitude: 1, longitude: 2 } }, { to: ME, image: { base64: '***' } }, { to: ME, text: 'x', addressing: 'x' }]) {
      await expect(control.send(CONTACT, body as never)).rejects.toSatisfy((e) => e instanceof EmulatorControlError && e.status === 400);
    }
  });
});
