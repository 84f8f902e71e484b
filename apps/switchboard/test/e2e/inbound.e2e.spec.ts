import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, eventually } from '../support/http.js';
import { MODES_AND_ADDRESSINGS, startSwitchboardUnderTest } from '../support/harness.js';
import type { SwitchboardUnderTest } from '../support/harness.js';
import { PNG, sha256 } from '../support/media.js';

let counter = 0;
const newPhone = (prefix: string) => `${prefix}${String(process.pid % 1000).padStart(3, '0')}${String(counter++).padStart(4, '0')}`;

describe.each(MODES_AND_ADDRESSINGS)('received messages and the conversation history (%s mode, %s addressing)', (mode, addressing) => {
  let sut: SwitchboardUnderTest;
  let api: ApiClient;
  let sessionId: string;
  let me: string;

  const history = (query: string) => api.get(`/v1/messages?${query}`);
  const receivedFrom = (contact: string, count: number) =>
    eventually(() => history(`direction=in&contact=${contact}`), (r) => r.body?.data?.messages?.length >= count).then((r) => r.body.data.messages);

  beforeAll(async () => {
    sut = await startSwitchboardUnderTest(mode, { addressing });
    api = new ApiClient(sut.url, sut.apiKey);
    me = newPhone('1444');
    const created = await api.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, me);
    sessionId = created.body.data.sessionId;
    await eventually(() => api.get(`/v1/sessions/${sessionId}`), (r) => r.body?.data?.status === 'connected');
  }, 180_000);
  afterAll(async () => {
    await sut?.close();
  });

  it('records every kind a contact sends, with its number and its LID however the network names it, once per network id', async () => {
    const contact = newPhone('1777');
    const ours = await api.post('/v1/messages/text', { sessionId, to: contact, text: 'how can we help?' });
    const ourId = ours.body.data.messageId;
    await eventually(() => sut.emulator.messages(contact), (m) => m.length === 1);
    const ourNetworkId = (await sut.emulator.messages(contact))[0]!.id;
    const send = (body: object) => sut.emulator.send(contact, { to: me, ...body } as never);
    const hello = await send({ text: 'hello', id: '3EB0E2E0000000000001' });
    // The network names the contact as this run's addressing says (the in-process emulator of the
    // embedded mode reads SWITCHBOARD_EMULATOR_ADDRESSING, the distributed one is its own process).
    expect(hello.from).toBe(addressing === 'lid' ? `9${contact}@lid` : `${contact}@s.whatsapp.net`);
    await send({ text: 'hello', id: '3EB0E2E0000000000001' }); // the network delivers it again
    await send({ text: 'about that', quotedMessageId: ourNetworkId });
    await send({ image: { base64: PNG.toString('base64'), caption: 'a pixel', mimetype: 'image/png' } });
    await send({ audio: { base64: Buffer.from('OggS voice note').toString('base64'), ptt: true, mimetype: 'audio/ogg' } });
    await send({ location: { latitude: 52.52, longitude: 13.405, name: 'Berlin' } });
    await send({ contact: { displayName: 'Ada', vcard: 'BEGIN:VCARD\nFN:Ada\nEND:VCARD' } });
    await send({ buttonReply: { id: 'yes', text: 'Yes' } });
    await send({ pollVote: { pollMessageId: ourNetworkId, options: ['A'] } });
    await send({ reaction: { messageId: ourNetworkId, emoji: '👍' } });
    const items = await receivedFrom(contact, 8);
    expect(items).toHaveLength(8);
    for (const item of items) expect(item).toMatchObject({ direction: 'in', sessionId, from: contact, to: me, fromLid: `9${contact}` });
    const byType = (type: string) => items.filter((i: { type: string }) => i.type === type);
    expect(byType('text').map((i: { text: string }) => i.text).sort()).toEqual(['about that', 'hello']);
    expect(byType('text').find((i: { text: string }) => i.text === 'about that').quotedMessageId).toBe(ourId);
    const [image, voice] = [byType('media').find((i: { media: { mediaType: string } }) => i.media.mediaType === 'image'), byType('media').find((i: { media: { mediaType: string } }) => i.media.mediaType === 'voice')];
    expect(image.media).toMatchObject({ mimetype: 'image/png', size: PNG.length, sha256: sha256(PNG), caption: 'a pixel', url: `/v1/messages/${image.messageId}/media` });
    const bytes = await fetch(`${sut.url}${image.media.url}`, { headers: { authorization: `Bearer ${sut.apiKey}` } });
    expect(bytes.status).toBe(200);
    expect(bytes.headers.get('content-type')).toBe('image/png');
    expect(sha256(Buffer.from(await bytes.arrayBuffer()))).toBe(sha256(PNG));
    expect(voice.media).toMatchObject({ mimetype: 'audio/ogg', sha256: sha256(Buffer.from('OggS voice note')) });
    expect(byType('location')[0].location).toEqual({ latitude: 52.52, longitude: 13.405, name: 'Berlin' });
    expect(byType('contact')[0].contact).toEqual({ displayName: 'Ada', vcard: 'BEGIN:VCARD\nFN:Ada\nEND:VCARD' });
    expect(byType('button_reply')[0].buttonReply).toEqual({ id: 'yes', text: 'Yes' });
    // A vote on a message that is not a poll we sent: the contact's phone had no secret for it.
    expect(byType('poll_vote')[0].pollVote).toEqual({ pollMessageId: ourNetworkId, options: [], unreadable: true });
    const reacted = await eventually(() => api.get(`/v1/messages/${ourId}`), (r) => r.status === 200);
    expect(reacted.body.data).toMatchObject({ direction: 'out', messageId: ourId });
    const inHistory = await eventually(() => history(`direction=out&contact=${contact}`), (r) => r.body.data.messages[0]?.reactions !== undefined);
    expect(inHistory.body.data.messages[0]).toMatchObject({ messageId: ourId, from: me, to: contact, type: 'text', reactions: [{ from: contact, emoji: '👍' }] });
    const lookup = await api.get(`/v1/messages/${image.messageId}`);
    expect(lookup.body.data).toMatchObject({ direction: 'in', messageId: image.messageId, type: 'media' });
    const text = await api.get(`/v1/messages/${byType('text')[0].messageId}/media`);
    expect([text.status, text.body.error.code]).toEqual([404, 'MEDIA_NOT_FOUND']);
  });

  it("names the session's own number as the sender of what it sends, before it has received anything", async () => {
    const linked = newPhone('1445');
    const created = await api.post('/v1/sessions', {});
    await sut.emulator.scan(created.body.data.qrCode, linked);
    const own = created.body.data.sessionId;
    await eventually(() => api.get(`/v1/sessions/${own}`), (r) => r.body?.data?.status === 'connected');
    const contact = newPhone('1778');
    const sent = await api.post('/v1/messages/text', { sessionId: own, to: contact, text: 'first words' });
    expect(sent.status).toBe(201);
    const outbound = await eventually(() => history(`sessionId=${own}&direction=out`), (r) => r.body?.data?.messages?.[0]?.from != null);
    expect(outbound.body.data.messages).toEqual([expect.objectContaining({ messageId: sent.body.data.messageId, direction: 'out', from: linked, to: contact, text: 'first words' })]);
  });

  it('pages newest first with an opaque cursor, filters, refuses unknown parameters, and hides other accounts', async () => {
    const contact = newPhone('1888');
    for (const text of ['one', 'two', 'three']) await sut.emulator.send(contact, { to: me, text });
    await receivedFrom(contact, 3);
    const first = await history(`contact=${contact}&limit=2`);
    expect(first.body.data.messages).toHaveLength(2);
    const second = await history(`contact=${contact}&limit=2&cursor=${first.body.data.nextCursor}`);
    expect(second.body.data).toMatchObject({ nextCursor: null });
    const all = [...first.body.data.messages, ...second.body.data.messages];
    expect(new Set(all.map((m: { messageId: string }) => m.messageId)).size).toBe(3);
    const times = all.map((m: { timestamp: string }) => m.timestamp);
    expect([...times].sort().reverse()).toEqual(times);
    expect((await history(`contact=${contact}&direction=out`)).body.data.messages).toEqual([]);
    expect((await history(`contact=${contact}&until=2000-01-01T00:00:00.000Z`)).body.data.messages).toEqual([]);
    expect((await history('directon=in')).status).toBe(400);
    expect((await history('limit=201')).status).toBe(400);
    const other = await new ApiClient(sut.url, sut.adminKey).post('/v1/admin/accounts', { plan: 'basic' });
    const stranger = api.withKey(other.body.data.apiKey);
    expect((await stranger.get(`/v1/messages/${all[0].messageId}`)).status).toBe(404);
    expect((await stranger.get(`/v1/messages/${all[0].messageId}/media`)).status).toBe(404);
    expect((await stranger.get(`/v1/messages?contact=${contact}`)).body.data.messages).toEqual([]);
  });
});
