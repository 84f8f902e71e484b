import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, eventually } from '../support/http.js';
import { MODES_AND_ADDRESSINGS, startSwitchboardUnderTest } from '../support/harness.js';
import type { SwitchboardUnderTest } from '../support/harness.js';
import { openEventStream, startWebhookReceiver } from '../support/webhook-receiver.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';

let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;

describe.each(MODES_AND_ADDRESSINGS)('polls: sent over HTTP, voted by the contact, told as events (%s mode, %s addressing)', (mode, addressing) => {
  let sut: SwitchboardUnderTest;
  let api: ApiClient;
  let receiver: WebhookReceiver;
  let sessionId: string;
  let me: string;

  const votesOn = (pollMessageId: string) =>
    receiver.accepted().filter((r) => r.event.type === 'message.received' && (r.event.data['pollVote'] as { pollMessageId?: string } | undefined)?.pollMessageId === pollMessageId);

  /** Sends a poll to `to` and resolves with our id and its id on the network (what the contact votes on). */
  const sendPoll = async (client: ApiClient, session: string, to: string, body: object) => {
    const sent = await client.post('/v1/messages/poll', { sessionId: session, to, ...body });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const [shown] = await eventually(() => sut.emulator.messages(to), (m) => m.length === 1);
    return { sent, messageId: sent.body.data.messageId as string, networkId: shown!.id, shown: shown! };
  };

  beforeAll(async () => {
    sut = await startSwitchboardUnderTest(mode, { addressing });
    api = new ApiClient(sut.url, sut.apiKey);
    receiver = await startWebhookReceiver();
    const hook = await api.post('/v1/webhooks', { url: receiver.url, events: ['message.received'] });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    receiver.trust(hook.body.data.secret);
    me = newPhone('1444');
    const created = await api.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, me);
    sessionId = created.body.data.sessionId;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  }, 180_000);
  afterAll(async () => {
    await receiver?.close();
    await sut?.close();
  });

  it('sends a poll the contact sees; each vote arrives by webhook and on the live stream with the options by name', async () => {
    const stream = openEventStream(sut.url, sut.apiKey);
    const contact = newPhone('1777');
    const poll = await sendPoll(api, sessionId, contact, { question: 'Which day suits you?', options: ['Tuesday', 'Wednesday', 'Thursday'] });
    expect(poll.sent.body.data).toEqual({ messageId: expect.stringMatching(/^msg_[0-9A-Z]{26}$/), status: 'sent', timestamp: expect.any(String) });
    expect(poll.shown).toMatchObject({ type: 'poll', from: me, poll: { question: 'Which day suits you?', options: ['Tuesday', 'Wednesday', 'Thursday'], multipleAnswers: false } });

    await sut.emulator.send(contact, { to: me, pollVote: { pollMessageId: poll.networkId, options: ['Wednesday'] } });
    const [first] = await eventually(async () => votesOn(poll.messageId), (v) => v.length === 1);
    expect(first!.verifiedWith).toHaveLength(1);
    expect(first!.event.data).toMatchObject({
      direction: 'in', type: 'poll_vote', sessionId, from: contact, to: me, fromLid: `9${contact}`,
      pollVote: { pollMessageId: poll.messageId, options: ['Wednesday'] },
    });
    expect(first!.event.data['pollVote']).not.toHaveProperty('unreadable');
    const live = await eventually(async () => stream.frames.filter((f) => f.event === 'message.received' && f.data.data['type'] === 'poll_vote'), (f) => f.length === 1);
    expect(live[0]!.data).toMatchObject({ id: first!.event.id, data: { pollVote: { pollMessageId: poll.messageId, options: ['Wednesday'] } } });
    await stream.close();

    // The contact changes its mind from a chat addressed the other way (a PN chat on a LID network,
    // a LID chat on a PN one): the new vote replaces the old one.
    await sut.emulator.send(contact, { to: me, pollVote: { pollMessageId: poll.networkId, options: ['Thursday'] }, addressing: addressing === 'lid' ? 'pn' : 'lid' });
    const votes = await eventually(async () => votesOn(poll.messageId), (v) => v.length === 2);
    expect(votes.map((v) => (v.event.data['pollVote'] as { options: string[] }).options)).toEqual([['Wednesday'], ['Thursday']]);
  });

  it('tells a multiple-answer poll\'s votes in the poll\'s order, a withdrawal as none, and shows the poll in the lookup and the history', async () => {
    const contact = newPhone('1777');
    const poll = await sendPoll(api, sessionId, contact, { question: 'Toppings?', options: ['Cheese', 'Olives', 'Basil'], multipleAnswers: true });
    expect(poll.shown).toMatchObject({ poll: { multipleAnswers: true } });
    await sut.emulator.send(contact, { to: me, pollVote: { pollMessageId: poll.networkId, options: ['Basil', 'Cheese'] } });
    await eventually(async () => votesOn(poll.messageId), (v) => v.length === 1);
    await sut.emulator.send(contact, { to: me, pollVote: { pollMessageId: poll.networkId, options: [] } });
    const votes = await eventually(async () => votesOn(poll.messageId), (v) => v.length === 2);
    expect(votes.map((v) => (v.event.data['pollVote'] as { options: string[] }).options)).toEqual([['Cheese', 'Basil'], []]);

    const lookup = await eventually(() => api.get(`/v1/messages/${poll.messageId}`), (r) => r.body?.data?.status === 'read');
    expect(lookup.body.data).toMatchObject({ messageId: poll.messageId, direction: 'out', type: 'poll', to: contact });
    const history = await api.get(`/v1/messages?direction=out&contact=${contact}`);
    expect(history.body.data.messages[0]).toMatchObject({
      messageId: poll.messageId, type: 'poll', from: me, to: contact, poll: { question: 'Toppings?', options: ['Cheese', 'Olives', 'Basil'], multipleAnswers: true },
    });
    const received = await api.get(`/v1/messages?direction=in&contact=${contact}`);
    // Both votes, whichever the second-resolution network time lists first.
    const inHistory = received.body.data.messages.map((m: { type: string; pollVote: unknown }) => [m.type, m.pollVote]);
    expect(inHistory).toHaveLength(2);
    expect(inHistory).toEqual(expect.arrayContaining([
      ['poll_vote', { pollMessageId: poll.messageId, options: [] }],
      ['poll_vote', { pollMessageId: poll.messageId, options: ['Cheese', 'Basil'] }],
    ]));
  });

  it('counts a poll as one message of the day; refuses a bad poll with every problem at once, sending and counting nothing', async () => {
    const admin = new ApiClient(sut.url, sut.adminKey);
    const account = await admin.post('/v1/admin/accounts', { plan: 'free' });
    const free = api.withKey(account.body.data.apiKey);
    const created = await free.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, newPhone('1445'));
    const freeSession = created.body.data.sessionId;
    await eventually(() => free.get(`/v1/sessions/${freeSession}`), (r) => r.body?.data?.status === 'connected');
    const contact = newPhone('1778');
    const poll = await sendPoll(free, freeSession, contact, { question: 'Coming?', options: ['Yes', 'No'] });
    expect([poll.sent.headers.get('ratelimit-limit'), poll.sent.headers.get('ratelimit-remaining')]).toEqual(['50', '49']);

    const bad = await free.post('/v1/messages/poll', {
      sessionId: freeSession, to: contact, question: 'x'.repeat(256), options: ['Yes', ' ', 'Yes', 'y'.repeat(101)], multipleAnswers: 'yes', extra: 1,
    });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(bad.body.error.details.map((d: { path: string }) => d.path).sort()).toEqual(['extra', 'multipleAnswers', 'options.1', 'options.2', 'options.3', 'question']);
    for (const options of [['only one'], Array.from({ length: 13 }, (_, i) => `option ${i}`)]) {
      const refused = await free.post('/v1/messages/poll', { sessionId: freeSession, to: contact, question: 'Q?', options });
      expect([refused.status, refused.body.error.details[0].path, refused.body.error.details[0].message]).toEqual([400, 'options', 'options must have 2–12 elements']);
    }
    expect((await admin.get(`/v1/admin/accounts/${account.body.data.accountId}`)).body.data.messagesToday).toBe(1);
    expect(await sut.emulator.messages(contact)).toHaveLength(1);
  });
});
