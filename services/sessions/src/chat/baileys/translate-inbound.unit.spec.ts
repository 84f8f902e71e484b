import { describe, expect, it } from 'vitest';
import type { WAMessage, proto } from '@whiskeysockets/baileys';
import { toInbound } from './translate-inbound.js';

const LID_KEY = { remoteJid: '915552223333@lid', remoteJidAlt: '15552223333@s.whatsapp.net', fromMe: false, id: 'IN1' };
const received = (message: proto.IMessage, key: WAMessage['key'] = LID_KEY) => toInbound({ key, message, messageTimestamp: 1_700_000_000 } as WAMessage);

describe('translating a received message', () => {
  it('gives the sender as a phone number with the LID beside it, and the network timestamp', () => {
    expect(received({ conversation: 'hi' })?.event).toEqual({ id: 'IN1', from: '15552223333', fromLid: '915552223333', sentAt: new Date(1_700_000_000_000), content: { type: 'text', text: 'hi' } });
    const byNumber = received({ conversation: 'hi' }, { remoteJid: '15552223333@s.whatsapp.net', remoteJidAlt: '915552223333@lid', fromMe: false, id: 'IN2' });
    expect(byNumber?.event).toMatchObject({ from: '15552223333', fromLid: '915552223333' });
  });

  it('skips our own messages, protocol traffic and LID senders without a number', () => {
    expect(received({ conversation: 'x' }, { ...LID_KEY, fromMe: true })).toBeUndefined();
    expect(received({ protocolMessage: { type: 0 } })).toBeUndefined();
    expect(received({ conversation: 'x' }, { remoteJid: '915552223333@lid', fromMe: false, id: 'IN3' })).toBeUndefined();
  });

  it('a reply names the quoted network id', () => {
    expect(received({ extendedTextMessage: { text: 'yes', contextInfo: { stanzaId: 'OUT1' } } })?.event).toMatchObject({ quotedId: 'OUT1', content: { type: 'text', text: 'yes' } });
  });

  it.each([
    [{ imageMessage: { mimetype: 'image/png', caption: 'c', mediaKey: new Uint8Array(32), url: 'https://h/m' } }, { kind: 'image', mimetype: 'image/png', caption: 'c' }, 'image'],
    [{ audioMessage: { mimetype: 'audio/ogg', ptt: true } }, { kind: 'voice', mimetype: 'audio/ogg' }, 'audio'],
    [{ audioMessage: { mimetype: 'audio/mpeg' } }, { kind: 'audio', mimetype: 'audio/mpeg' }, 'audio'],
    [{ documentMessage: { mimetype: 'application/pdf', fileName: 'a.pdf' } }, { kind: 'document', mimetype: 'application/pdf', filename: 'a.pdf' }, 'document'],
    [{ stickerMessage: {} }, { kind: 'sticker', mimetype: 'image/webp' }, 'sticker'],
    [{ videoMessage: { mimetype: 'video/mp4' } }, { kind: 'video', mimetype: 'video/mp4' }, 'video'],
  ])('media %#: metadata, and what to download with which keys', (message, media, type) => {
    const translated = received(message as proto.IMessage);
    expect(translated?.event.content).toEqual({ type: 'media', media });
    expect(translated?.download?.type).toBe(type);
  });

  it.each([
    [{ locationMessage: { degreesLatitude: 1.5, degreesLongitude: -2, name: 'N' } }, { type: 'location', latitude: 1.5, longitude: -2, name: 'N' }],
    [{ contactMessage: { displayName: 'Ada', vcard: 'BEGIN:VCARD' } }, { type: 'contact', displayName: 'Ada', vcard: 'BEGIN:VCARD' }],
    [{ reactionMessage: { key: { id: 'OUT1', fromMe: true }, text: '👍' } }, { type: 'reaction', targetId: 'OUT1', emoji: '👍' }],
    [{ reactionMessage: { key: { id: 'OUT1' }, text: '' } }, { type: 'reaction', targetId: 'OUT1', emoji: '' }],
    [{ pollUpdateMessage: { pollCreationMessageKey: { id: 'P1' }, vote: {} } }, { type: 'poll_vote', pollId: 'P1', selectedOptionHashes: null }],
    [
      { interactiveResponseMessage: { body: { text: 'Yes' }, nativeFlowResponseMessage: { name: 'quick_reply', paramsJson: '{"id":"yes"}', version: 1 } } },
      { type: 'button_reply', id: 'yes', text: 'Yes' },
    ],
    [{ interactiveResponseMessage: { nativeFlowResponseMessage: { paramsJson: 'not json' } } }, { type: 'button_reply', id: '' }],
    [{ buttonsResponseMessage: { selectedButtonId: 'yes', selectedDisplayText: 'Yes' } }, { type: 'button_reply', id: 'yes', text: 'Yes' }],
    [{ listResponseMessage: { title: 'Row', singleSelectReply: { selectedRowId: 'r1' } } }, { type: 'button_reply', id: 'r1', text: 'Row' }],
    [{ eventMessage: { name: 'party' } }, { type: 'unsupported', rawType: 'eventMessage' }],
  ])('%o', (message, content) => {
    expect(received(message as proto.IMessage)?.event.content).toEqual(content);
  });
});

describe('a vote on a poll', () => {
  const vote = { encPayload: new Uint8Array(40), encIv: new Uint8Array(12) };

  it('on one of ours is handed to the driver to open, with every jid the voter goes by', () => {
    const translated = received({ pollUpdateMessage: { pollCreationMessageKey: { id: 'P1', fromMe: true }, vote } });
    expect(translated?.event.content).toEqual({ type: 'poll_vote', pollId: 'P1', selectedOptionHashes: null });
    expect(translated?.vote).toEqual({ pollId: 'P1', vote, voterJids: ['915552223333@lid', '15552223333@s.whatsapp.net'] });
  });

  it('on someone else\'s poll is told unopened: only the poll\'s sender holds its secret', () => {
    expect(received({ pollUpdateMessage: { pollCreationMessageKey: { id: 'P2', fromMe: false }, vote } })?.vote).toBeUndefined();
  });
});
