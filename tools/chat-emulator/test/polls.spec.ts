import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptPollVote, normalizeMessageContent } from '@whiskeysockets/baileys';
import type { WAMessage, WASocket } from '@whiskeysockets/baileys';
import { EmulatorControlClient, EmulatorControlError, startEmulator } from '../src/index.js';
import type { RunningEmulator } from '../src/index.js';
import type { TestClient } from './support/baileys-client.js';
import { waitForEvent } from './support/baileys-client.js';
import { linkClient } from './support/pairing.js';
import { newMessageId, until } from './support/status.js';

const ME = '15550004444';
const CONTACT = '15551240001';
const hash = (option: string) => createHash('sha256').update(option).digest('hex');

describe('polls: a contact sees a poll and votes on it as a phone does', () => {
  let emulator: RunningEmulator;
  let control: EmulatorControlClient;
  let client: TestClient;
  let sock: WASocket;

  beforeAll(async () => {
    emulator = await startEmulator();
    control = new EmulatorControlClient(emulator.controlUrl);
    ({ client, sock } = await linkClient(emulator, control, ME));
  });
  afterAll(async () => {
    client.end();
    await emulator.stop();
  });

  /** Sends a poll with a known secret; resolves with its id once the contact shows it. */
  const sendPoll = async (values: string[], selectableCount: number, secret: Buffer): Promise<string> => {
    const sent = await sock.sendMessage(`${CONTACT}@s.whatsapp.net`, { poll: { name: 'Which day?', values, selectableCount, messageSecret: secret } });
    const id = sent?.key.id ?? '';
    await until(async () => (await control.messages(CONTACT)).find((m) => m.id === id), 5_000);
    return id;
  };

  /** The contact votes; resolves with the vote as the linked Baileys client got it. */
  const vote = async (pollMessageId: string, options: string[], addressing?: 'lid' | 'pn'): Promise<WAMessage> => {
    const id = newMessageId();
    const upsert = waitForEvent(sock.ev, 'messages.upsert', ({ messages }) => messages.find((m) => m.key.id === id));
    await control.send(CONTACT, { to: ME, id, pollVote: { pollMessageId, options }, ...(addressing ? { addressing } : {}) });
    return upsert;
  };

  /** Opens a vote as the poll's creator does, with the jids of the chat's addressing. */
  const open = (message: WAMessage, secret: Buffer, pollId: string, creator: string, voter: string): string[] => {
    const update = normalizeMessageContent(message.message)?.pollUpdateMessage;
    return decryptPollVote(update?.vote ?? {}, { pollEncKey: secret, pollCreatorJid: creator, pollMsgId: pollId, voterJid: voter }).selectedOptions.map((h) => Buffer.from(h).toString('hex'));
  };

  it('shows the poll (question, options, one answer or several) and never its secret', async () => {
    const single = await sendPoll(['Tue', 'Wed'], 1, randomBytes(32));
    const multiple = await sendPoll(['A', 'B', 'C'], 0, randomBytes(32));
    const received = await control.messages(CONTACT);
    expect(received.find((m) => m.id === single)).toMatchObject({ type: 'poll', from: ME, poll: { question: 'Which day?', options: ['Tue', 'Wed'], multipleAnswers: false } });
    expect(received.find((m) => m.id === multiple)).toMatchObject({ type: 'poll', poll: { options: ['A', 'B', 'C'], multipleAnswers: true } });
    expect(received.every((m) => !('pollSecret' in m))).toBe(true);
  });

  it('votes with the poll\'s secret, bound to the LIDs in a LID-addressed chat and to the numbers in a PN-addressed one', async () => {
    const secret = randomBytes(32);
    const pollId = await sendPoll(['Tue', 'Wed', 'Thu'], 0, secret);
    const byLid = await vote(pollId, ['Thu', 'Tue']);
    expect(normalizeMessageContent(byLid.message)?.pollUpdateMessage?.pollCreationMessageKey).toMatchObject({ id: pollId, fromMe: true });
    expect(open(byLid, secret, pollId, `9${ME}@lid`, `9${CONTACT}@lid`)).toEqual([hash('Thu'), hash('Tue')]);
    const byPn = await vote(pollId, ['Wed'], 'pn');
    expect(open(byPn, secret, pollId, `${ME}@s.whatsapp.net`, `${CONTACT}@s.whatsapp.net`)).toEqual([hash('Wed')]);
    // Withdrawn: an opened vote with nothing chosen.
    expect(open(await vote(pollId, []), secret, pollId, `9${ME}@lid`, `9${CONTACT}@lid`)).toEqual([]);
  });

  it('refuses what a phone would not offer: another poll\'s option, a repeat, two answers to a one-answer poll', async () => {
    const pollId = await sendPoll(['Yes', 'No'], 1, randomBytes(32));
    for (const options of [['Maybe'], ['Yes', 'Yes'], ['Yes', 'No']]) {
      const refused = control.send(CONTACT, { to: ME, pollVote: { pollMessageId: pollId, options } });
      await expect(refused).rejects.toBeInstanceOf(EmulatorControlError);
      await expect(refused).rejects.toMatchObject({ status: 400, code: 'invalid_request' });
    }
  });

  it('a vote on a message that is not a poll it holds cannot be opened', async () => {
    const text = await sock.sendMessage(`${CONTACT}@s.whatsapp.net`, { text: 'not a poll' });
    const id = text?.key.id ?? '';
    await until(async () => (await control.messages(CONTACT)).find((m) => m.id === id), 5_000);
    const message = await vote(id, ['Yes']);
    expect(() => open(message, randomBytes(32), id, `9${ME}@lid`, `9${CONTACT}@lid`)).toThrow();
  });
});
