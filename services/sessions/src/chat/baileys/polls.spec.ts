import { createHash } from 'node:crypto';
import { startEmulator, type RunningEmulator } from '@switchboard/chat-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatDriver, InboundEvent, ReceiptEvent } from '../driver.js';
import { nextEvent } from '../testing/driver-events.js';
import { ChatFixture, uniquePhone } from '../testing/chat-fixture.js';
import { waitForReceived } from '../testing/emulator-control.js';
import { pairWithPhone } from '../testing/pair.js';

const SESSION = 'ses_polls';
const hash = (option: string) => createHash('sha256').update(option).digest('hex');

let emulator: RunningEmulator;
let chat: ChatFixture;
let driver: ChatDriver;
const me = uniquePhone();

beforeAll(async () => {
  emulator = await startEmulator({ port: 0, controlPort: 0 });
  chat = await ChatFixture.create(emulator);
  driver = chat.driver(SESSION);
  await pairWithPhone(driver, chat.control, me);
});
afterAll(async () => {
  await chat?.close();
  await emulator?.stop();
});

async function newContact(): Promise<string> {
  const phone = uniquePhone('1446');
  await chat.control.setContact(phone, { onNetwork: true, deliverAfterMs: 20, readAfterMs: 60 });
  return phone;
}

/** The contact votes through the emulator; resolves with the vote as the driver reports it. */
async function vote(on: ChatDriver, contact: string, pollMessageId: string, options: string[], addressing?: 'lid' | 'pn'): Promise<InboundEvent> {
  const inbound = nextEvent(on, 'inbound', (m) => m.from === contact && m.content.type === 'poll_vote');
  await chat.control.send(contact, { to: me, pollVote: { pollMessageId, options }, ...(addressing ? { addressing } : {}) });
  return inbound;
}

describe('polls through a connected session', () => {
  it('delivers a poll the contact sees with its question and options, then delivered and read', async () => {
    const contact = await newContact();
    const receipts: ReceiptEvent[] = [];
    driver.on('receipt', (r) => receipts.push(r));
    const sent = await driver.sendPoll(contact, { question: 'Which day suits you?', options: ['Tuesday', 'Wednesday'], multipleAnswers: false });
    expect(await waitForReceived(chat.control, contact, sent.id)).toMatchObject({
      from: me, type: 'poll', poll: { question: 'Which day suits you?', options: ['Tuesday', 'Wednesday'], multipleAnswers: false },
    });
    await nextEvent(driver, 'receipt', (r) => r.id === sent.id && r.status === 'read', 10_000).catch(() => undefined);
    expect(receipts.filter((r) => r.id === sent.id).map((r) => r.status)).toEqual(['delivered', 'read']);
  });

  it('opens each vote on its poll: the chosen options by hash, in LID- and PN-addressed chats, a withdrawal as none', async () => {
    const contact = await newContact();
    const sent = await driver.sendPoll(contact, { question: 'Toppings?', options: ['Cheese', 'Olives', 'Basil'], multipleAnswers: true });
    await waitForReceived(chat.control, contact, sent.id);
    const byLid = await vote(driver, contact, sent.id, ['Basil', 'Cheese']);
    expect(byLid).toMatchObject({ from: contact, fromLid: `9${contact}`, content: { type: 'poll_vote', pollId: sent.id } });
    expect(byLid.content.type === 'poll_vote' && [...(byLid.content.selectedOptionHashes ?? [])].sort()).toEqual([hash('Basil'), hash('Cheese')].sort());
    const byPn = await vote(driver, contact, sent.id, ['Olives'], 'pn');
    expect(byPn.content).toEqual({ type: 'poll_vote', pollId: sent.id, selectedOptionHashes: [hash('Olives')] });
    expect((await vote(driver, contact, sent.id, [])).content).toEqual({ type: 'poll_vote', pollId: sent.id, selectedOptionHashes: [] });
  });

  it('opens a vote after a restart: the poll\'s secret is derived, not kept in memory', async () => {
    const contact = await newContact();
    const sent = await driver.sendPoll(contact, { question: 'Still there?', options: ['Yes', 'No'], multipleAnswers: false });
    await waitForReceived(chat.control, contact, sent.id);
    await driver.stop();
    const restarted = chat.driver(SESSION);
    const connected = nextEvent(restarted, 'connected');
    await restarted.start();
    await connected;
    expect((await vote(restarted, contact, sent.id, ['No'])).content).toEqual({ type: 'poll_vote', pollId: sent.id, selectedOptionHashes: [hash('No')] });
    driver = restarted;
  });

  it('reports a vote it cannot open (not on a poll it sent) as unreadable: null hashes', async () => {
    const contact = await newContact();
    const text = await driver.sendText(contact, 'not a poll');
    await waitForReceived(chat.control, contact, text.id);
    expect((await vote(driver, contact, text.id, ['Yes'])).content).toEqual({ type: 'poll_vote', pollId: text.id, selectedOptionHashes: null });
  });
});
