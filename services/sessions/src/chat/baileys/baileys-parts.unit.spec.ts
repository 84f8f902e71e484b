import { proto } from '@whiskeysockets/baileys';
import type { WAMessage } from '@whiskeysockets/baileys';
import { describe, expect, it } from 'vitest';
import { buttonsBizNode, buttonsMessageProto, mediaMessageContent, pollMessageContent } from './content.js';
import { normalizePhone } from './recipient-directory.js';
import { reconnectDelayMs } from './reconnect-policy.js';
import { closeAction } from './socket-settings.js';
import { ReceiptTracker } from './translate-events.js';

const { Status } = proto.WebMessageInfo;
const ownKey = { remoteJid: '15551234567@s.whatsapp.net', fromMe: true, id: 'M1' };

describe('receipts', () => {
  it('reports delivered then read once each, whichever Baileys event carries them', () => {
    const tracker = new ReceiptTracker();
    const at = new Date(0);
    expect(tracker.fromUpdates([{ key: ownKey, update: { status: Status.DELIVERY_ACK } }], at)).toEqual([{ id: 'M1', status: 'delivered', at }]);
    expect(tracker.fromUpserts([{ key: ownKey, status: Status.DELIVERY_ACK } as WAMessage], at)).toEqual([]);
    expect(tracker.fromUpserts([{ key: ownKey, status: Status.READ } as WAMessage], at)).toEqual([{ id: 'M1', status: 'read', at }]);
    expect(tracker.fromUpdates([{ key: ownKey, update: { status: Status.READ } }], at)).toEqual([]);
  });

  it('implies delivered when read is the first status seen (folded into a buffered upsert)', () => {
    const statuses = new ReceiptTracker().fromUpserts([{ key: ownKey, status: Status.READ } as WAMessage]).map((r) => r.status);
    expect(statuses).toEqual(['delivered', 'read']);
  });

  it('reads receipt stanzas directly, batched ids included, so a late delivery cannot hide a read', () => {
    const tracker = new ReceiptTracker();
    const own = ['15550001111:7@s.whatsapp.net', '99887766:7@lid'];
    const read = { tag: 'receipt', attrs: { from: '15551234567@s.whatsapp.net', id: 'M1', type: 'read', t: '1700000000' },
      content: [{ tag: 'list', attrs: {}, content: [{ tag: 'item', attrs: { id: 'M2' } }] }] };
    const delivered = { tag: 'receipt', attrs: { from: '15551234567@s.whatsapp.net', id: 'M1', t: '1700000000' } };
    expect(tracker.fromReceiptNode(read, own).map((r) => `${r.id}:${r.status}`)).toEqual(['M1:delivered', 'M1:read', 'M2:delivered', 'M2:read']);
    expect(tracker.fromReceiptNode(delivered, own)).toEqual([]);
    expect(tracker.fromUpdates([{ key: ownKey, update: { status: Status.DELIVERY_ACK } }])).toEqual([]);
  });

  it('ignores receipt stanzas from our own devices and from groups', () => {
    const tracker = new ReceiptTracker();
    const own = ['15550001111:7@s.whatsapp.net'];
    expect(tracker.fromReceiptNode({ tag: 'receipt', attrs: { from: '15550001111@s.whatsapp.net', id: 'X', type: 'read' } }, own)).toEqual([]);
    expect(tracker.fromReceiptNode({ tag: 'receipt', attrs: { from: '123-456@g.us', participant: '1555@s.whatsapp.net', id: 'Y' } }, own)).toEqual([]);
    expect(tracker.fromReceiptNode({ tag: 'receipt', attrs: { from: '15551234567@s.whatsapp.net', id: 'Z', type: 'retry' } }, own)).toEqual([]);
  });

  it('ignores server acks and statuses of messages we did not send', () => {
    const tracker = new ReceiptTracker();
    expect(tracker.fromUpdates([{ key: ownKey, update: { status: Status.SERVER_ACK } }])).toEqual([]);
    expect(tracker.fromUpdates([{ key: { ...ownKey, fromMe: false }, update: { status: Status.READ } }])).toEqual([]);
  });
});

describe('closing', () => {
  it.each([
    [515, 'Stream Errored (restart required)', 'restart'],
    [401, 'Intentional Logout', 'logged_out'],
    [408, 'QR refs attempts ended', 'pairing_timeout'],
    [408, 'Connection was lost', 'reconnect'],
    [428, 'Connection Terminated', 'reconnect'],
    [440, 'Stream Errored (conflict)', 'connection_replaced'],
    [405, 'Connection Failure', 'version_refused'],
    [503, 'Connection Failure', 'reconnect'],
    [undefined, undefined, 'reconnect'],
  ])('status %s (%s) means %s', (statusCode, message, action) => {
    expect(closeAction({ statusCode, message })).toBe(action);
  });

  it('backs off exponentially up to the cap, with jitter in the upper half', () => {
    const policy = { initialDelayMs: 500, maxDelayMs: 30_000, maxAttempts: Infinity };
    expect(reconnectDelayMs(policy, 1, () => 0)).toBe(250);
    expect(reconnectDelayMs(policy, 1, () => 1)).toBe(500);
    expect(reconnectDelayMs(policy, 4, () => 1)).toBe(4_000);
    expect(reconnectDelayMs(policy, 40, () => 1)).toBe(30_000);
  });
});

describe('outgoing content', () => {
  it('builds buttons as the native-flow quick replies the network still takes, with the <biz> node they need', () => {
    const message = buttonsMessageProto({ text: 'Pick', footer: 'f', buttons: [{ id: 'a', text: 'A' }] });
    expect(message.buttonsMessage).toBeUndefined();
    const inner = message.viewOnceMessage?.message;
    expect(inner?.messageContextInfo).toEqual({ deviceListMetadata: {}, deviceListMetadataVersion: 2 });
    expect(inner?.interactiveMessage).toMatchObject({
      body: { text: 'Pick' },
      footer: { text: 'f' },
      nativeFlowMessage: { buttons: [{ name: 'quick_reply', buttonParamsJson: '{"display_text":"A","id":"a"}' }] },
    });
    expect(buttonsBizNode(1_800_000_000)).toEqual({
      tag: 'biz',
      attrs: { actual_actors: '2', host_storage: '2', privacy_mode_ts: '1800000000' },
      content: [
        { tag: 'interactive', attrs: { type: 'native_flow', v: '1' }, content: [{ tag: 'native_flow', attrs: { v: '9', name: 'mixed' } }] },
        { tag: 'quality_control', attrs: { source_type: 'third_party' } },
      ],
    });
  });

  it('builds a poll with its secret: one answer or any number', () => {
    const secret = new Uint8Array(32).fill(7);
    expect(pollMessageContent({ question: 'Q?', options: ['a', 'b'], multipleAnswers: false }, secret)).toEqual({ poll: { name: 'Q?', values: ['a', 'b'], selectableCount: 1, messageSecret: secret } });
    expect(pollMessageContent({ question: 'Q?', options: ['a', 'b', 'c'], multipleAnswers: true }, secret)).toMatchObject({ poll: { selectableCount: 0 } });
    expect(() => pollMessageContent({ question: 'Q?', options: ['a'], multipleAnswers: false }, secret)).toThrow(RangeError);
    expect(() => pollMessageContent({ question: 'Q?', options: ['a', 'a'], multipleAnswers: false }, secret)).toThrow(RangeError);
  });

  it('refuses more than three buttons', () => {
    const buttons = ['a', 'b', 'c', 'd'].map((id) => ({ id, text: id }));
    expect(() => buttonsMessageProto({ text: 'Pick', buttons })).toThrow(RangeError);
  });

  it('refuses a caption on audio rather than dropping it', () => {
    expect(() => mediaMessageContent({ kind: 'audio', bytes: Buffer.from('x'), mimetype: 'audio/ogg', caption: 'lost' })).toThrow(RangeError);
  });

  it('normalizes phone numbers and refuses what is not one', () => {
    expect(normalizePhone('+1 (555) 123-4567')).toBe('15551234567');
    expect(() => normalizePhone('15551234567@s.whatsapp.net')).toThrow(RangeError);
  });
});
