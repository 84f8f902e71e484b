import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { startEmulator, type RunningEmulator } from '@switchboard/chat-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatDriver, InboundEvent, ReceiptEvent } from '../driver.js';
import { nextEvent } from '../testing/driver-events.js';
import { ChatFixture, uniquePhone } from '../testing/chat-fixture.js';
import { pairWithPhone } from '../testing/pair.js';

/**
 * The network as it is now (the emulator's default `lid` addressing): contacts write and answer
 * by LID, with their number beside it or not at all, and may move from numbers to LIDs in the
 * middle of a conversation. Switchboard matches every status, message and reaction to the right
 * message and phone number, and keeps the LID mapping with the credentials, sealed.
 */
describe('LID-addressed contacts', () => {
  let emulator: RunningEmulator;
  let chat: ChatFixture;
  let driver: ChatDriver;
  const me = uniquePhone();
  const sessionId = 'ses_lid_addressing';
  const receipts: ReceiptEvent[] = [];

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, controlPort: 0 });
    chat = await ChatFixture.create(emulator);
    driver = chat.driver(sessionId);
    driver.on('receipt', (receipt) => receipts.push(receipt));
    await pairWithPhone(driver, chat.control, me);
  });
  afterAll(async () => {
    await chat?.close();
    await emulator?.stop();
  });

  const statusesOf = (id: string) => receipts.filter((r) => r.id === id).map((r) => r.status);
  const readOn = (id: string) => nextEvent(driver, 'receipt', (r) => r.id === id && r.status === 'read', 10_000);
  const atRest = () => Buffer.concat(readdirSync(chat.dataDir).filter((f) => f.startsWith('sessions.db')).map((f) => readFileSync(join(chat.dataDir, f))));
  const heldRows = () => {
    const db = new DatabaseSync(join(chat.dataDir, 'sessions.db'), { readOnly: true });
    try {
      return (db.prepare("SELECT COUNT(*) AS n FROM chat_credentials WHERE session_id = ? AND kind = 'lid-held'").get(sessionId) as { n: number }).n;
    } finally {
      db.close();
    }
  };
  const inboundFrom = (phone: string) => nextEvent(driver, 'inbound', (m) => m.from === phone, 10_000);

  it('matches delivered and read receipts naming the LID to the message sent to the number', async () => {
    const to = uniquePhone('1448');
    await chat.control.setContact(to, { deliverAfterMs: 20, readAfterMs: 60 });
    const sent = await driver.sendText(to, 'hello, LID world');
    const read = readOn(sent.id);
    await read;
    expect(statusesOf(sent.id)).toEqual(['delivered', 'read']);
  });

  it('loses nothing when a contact moves to its LID mid-conversation', async () => {
    const to = uniquePhone('1448');
    const timing = { deliverAfterMs: 20, readAfterMs: 1_500 };
    await chat.control.setContact(to, { ...timing, addressing: 'pn' });
    const before = await driver.sendText(to, 'sent while you had a number');
    const beforeRead = readOn(before.id);
    let inbound = inboundFrom(to);
    await chat.control.inbound(to, me, 'still by number');
    expect(await inbound).toMatchObject({ from: to, content: { type: 'text', text: 'still by number' } });

    // Moved to LIDs: the read receipt of the message sent before, replies and reactions now name the LID.
    await chat.control.setContact(to, { ...timing, readAfterMs: 60, addressing: 'lid' });
    inbound = inboundFrom(to);
    const reply = await chat.control.send(to, { to: me, text: 'now by LID', quotedMessageId: before.id });
    expect(reply.from).toBe(`9${to}@lid`);
    expect(await inbound).toMatchObject({ from: to, fromLid: `9${to}`, quotedId: before.id, content: { type: 'text', text: 'now by LID' } });
    inbound = inboundFrom(to);
    await chat.control.send(to, { to: me, reaction: { messageId: before.id, emoji: '👍' } });
    expect(await inbound).toMatchObject({ from: to, content: { type: 'reaction', targetId: before.id, emoji: '👍' } });
    await beforeRead;
    expect(statusesOf(before.id)).toEqual(['delivered', 'read']);

    const after = await driver.sendText(to, 'and after the move');
    await readOn(after.id);
    expect(statusesOf(after.id)).toEqual(['delivered', 'read']);
  });

  it('names a sender given by LID alone through the mapping on record, also after a restart', async () => {
    const to = uniquePhone('1448');
    await chat.control.setContact(to, { deliverAfterMs: 20, readAfterMs: null });
    // The send's contact lookup told the mapping; the contact's message then comes by LID only.
    await driver.sendText(to, 'so you know my LID');
    let inbound: Promise<InboundEvent> = inboundFrom(to);
    await chat.control.send(to, { to: me, text: 'LID only', alternate: false });
    expect(await inbound).toMatchObject({ from: to, fromLid: `9${to}`, content: { type: 'text', text: 'LID only' } });

    await driver.stop();
    driver = chat.driver(sessionId);
    const connected = nextEvent(driver, 'connected');
    await driver.start();
    await connected;
    inbound = inboundFrom(to);
    await chat.control.send(to, { to: me, text: 'LID only, after the restart', alternate: false });
    expect(await inbound).toMatchObject({ from: to, content: { type: 'text', text: 'LID only, after the restart' } });
  });

  it('holds a message from a LID no mapping names yet, and tells it first once the number arrives', async () => {
    const to = uniquePhone('1448');
    await chat.control.setContact(to, { deliverAfterMs: 20, readAfterMs: null });
    const told: InboundEvent[] = [];
    const listener = (event: InboundEvent) => event.fromLid === `9${to}` && told.push(event);
    driver.on('inbound', listener);
    try {
      await chat.control.send(to, { to: me, text: 'who am I?', alternate: false });
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(told).toEqual([]);
      await chat.control.send(to, { to: me, text: 'my number is beside this one' });
      await expect.poll(() => told.length, { timeout: 5_000 }).toBe(2);
      expect(told.map((m) => [m.from, m.content.type === 'text' ? m.content.text : m.content.type])).toEqual([
        [to, 'who am I?'],
        [to, 'my number is beside this one'],
      ]);
      for (const event of told) driver.inboundRecorded(event.id);
      await expect.poll(heldRows, { timeout: 2_000 }).toBe(0);
    } finally {
      driver.off('inbound', listener);
    }
  });

  it('keeps a held message across a restart, and tells it once, first, when the number arrives after it', async () => {
    const to = uniquePhone('1448');
    await chat.control.setContact(to, { deliverAfterMs: 20, readAfterMs: null });
    const told: InboundEvent[] = [];
    const listener = (event: InboundEvent) => event.fromLid === `9${to}` && told.push(event);
    driver.on('inbound', listener);
    await chat.control.send(to, { to: me, text: 'held while you restart', alternate: false });
    await new Promise((resolve) => setTimeout(resolve, 700));
    expect(told).toEqual([]);
    driver.off('inbound', listener);
    const heardBy = Date.now();
    // Kept with the credentials, sealed like them.
    expect(heldRows()).toBeGreaterThan(0);
    expect(atRest().includes(Buffer.from('held while you restart'))).toBe(false);

    await driver.stop();
    driver = chat.driver(sessionId);
    driver.on('inbound', listener);
    try {
      const connected = nextEvent(driver, 'connected');
      await driver.start();
      await connected;
      await chat.control.send(to, { to: me, text: 'here is my number' });
      await expect.poll(() => told.length, { timeout: 5_000 }).toBe(2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(told.map((m) => [m.from, m.content.type === 'text' ? m.content.text : m.content.type])).toEqual([
        [to, 'held while you restart'],
        [to, 'here is my number'],
      ]);
      expect(told[0]!.sentAt.getTime()).toBeLessThanOrEqual(heardBy);
      // Kept until Switchboard recorded it (the registry says so once it is in the outbox).
      expect(heldRows()).toBeGreaterThan(0);
      for (const event of told) driver.inboundRecorded(event.id);
      await expect.poll(heldRows, { timeout: 2_000 }).toBe(0);
    } finally {
      driver.off('inbound', listener);
    }
  });

  it('tells a held message at the restart when the mapping was stored meanwhile, with no message of the contact', async () => {
    const to = uniquePhone('1448');
    await chat.control.setContact(to, { deliverAfterMs: 20, readAfterMs: null });
    await chat.control.send(to, { to: me, text: 'anyone there?', alternate: false });
    await expect.poll(heldRows, { timeout: 5_000 }).toBeGreaterThan(0);
    // The send's contact lookup stores the mapping (no lid-mapping.update: the held message stays held).
    await driver.sendText(to, 'yes, who is this?');
    await expect.poll(async () => (await chat.store.read(sessionId, 'lid-mapping', to))?.toString(), { timeout: 5_000 }).toContain(`9${to}`);

    await driver.stop();
    driver = chat.driver(sessionId);
    const order: string[] = [];
    driver.on('connected', () => order.push('connected'));
    driver.on('inbound', (event) => event.from === to && order.push('inbound'));
    const inbound = inboundFrom(to);
    const connected = nextEvent(driver, 'connected');
    await driver.start();
    await connected;
    const told = await inbound;
    expect(told).toMatchObject({ from: to, fromLid: `9${to}`, content: { type: 'text', text: 'anyone there?' } });
    // After `connected`: the registry records a received message under the linked number it names.
    expect(order).toEqual(['connected', 'inbound']);
    driver.inboundRecorded(told.id);
    await expect.poll(heldRows, { timeout: 2_000 }).toBe(0);
  });

  it("keeps Baileys 7's LID mapping and device lists in the credentials store, sealed like every key", async () => {
    const to = uniquePhone('1448');
    await chat.control.setContact(to, { deliverAfterMs: 20, readAfterMs: null });
    await driver.sendText(to, 'map me');
    await expect.poll(async () => (await chat.store.read(sessionId, 'lid-mapping', to))?.toString(), { timeout: 5_000 }).toContain(`9${to}`);
    expect((await chat.store.read(sessionId, 'lid-mapping', `9${to}_reverse`))?.toString()).toContain(to);

    const db = new DatabaseSync(join(chat.dataDir, 'sessions.db'), { readOnly: true });
    try {
      const kinds = (db.prepare('SELECT DISTINCT kind FROM chat_credentials WHERE session_id = ?').all(sessionId) as { kind: string }[]).map((r) => r.kind);
      expect(kinds).toEqual(expect.arrayContaining(['creds', 'session', 'lid-mapping', 'device-list']));
      const values = db.prepare("SELECT value FROM chat_credentials WHERE session_id = ? AND kind IN ('lid-mapping', 'device-list')").all(sessionId) as { value: Uint8Array }[];
      const atRest = Buffer.concat(values.map((r) => Buffer.from(r.value)));
      expect(atRest.includes(Buffer.from(`9${to}`))).toBe(false);
    } finally {
      db.close();
    }
  });
});
