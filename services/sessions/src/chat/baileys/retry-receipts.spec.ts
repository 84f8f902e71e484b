import { createHash } from 'node:crypto';
import { startEmulator, type RunningEmulator } from '@switchboard/chat-emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatDriver, ReceiptEvent, SentContentRecord, SentContentSource } from '../driver.js';
import { nextEvent } from '../testing/driver-events.js';
import { ChatFixture, uniquePhone } from '../testing/chat-fixture.js';
import { waitForReceived } from '../testing/emulator-control.js';
import { pairWithPhone } from '../testing/pair.js';

/**
 * A recipient's phone that fails to decrypt asks for the message again (a retry receipt); the
 * driver answers with the message again, same id, built from the session's record of what it sent
 * (`sentContent`, messaging's message streams in the service; here a record the test keeps), and
 * the status goes on to delivered. In both of the emulator's addressing modes.
 */
describe.each(['lid', 'pn'] as const)('resends a recipient asks for (%s addressing)', (addressing) => {
  let emulator: RunningEmulator;
  let chat: ChatFixture;
  let driver: ChatDriver;
  const me = uniquePhone();
  const sessionId = `ses_retry_${addressing}`;
  /** What the session sent, by network id; `erased` ids are answered as unknown. */
  const record = new Map<string, SentContentRecord>();
  const erased = new Set<string>();
  /** Ids whose record cannot be read (messaging away). */
  const unreadable = new Set<string>();
  const asked: string[] = [];
  const sentContent: SentContentSource = async (id) => {
    asked.push(id);
    if (unreadable.has(id)) throw new Error('messaging did not answer');
    return erased.has(id) ? undefined : record.get(id);
  };
  /** Resends that failed, as the driver reported them. */
  const failedResends: { id: string; error: unknown }[] = [];
  const options = { sentContent, onResendFailed: (id: string, error: unknown) => failedResends.push({ id, error }) };

  beforeAll(async () => {
    emulator = await startEmulator({ port: 0, controlPort: 0, addressing });
    chat = await ChatFixture.create(emulator);
    driver = chat.driver(sessionId, options);
    await pairWithPhone(driver, chat.control, me);
  });
  afterAll(async () => {
    await chat?.close();
    await emulator?.stop();
  });

  async function contact(settings: { failDecryptNext: number; deliverAfterMs?: number }): Promise<string> {
    const phone = uniquePhone('1446');
    await chat.control.setContact(phone, { deliverAfterMs: 30, readAfterMs: null, ...settings });
    return phone;
  }

  const deliveredOn = (on: ChatDriver, id: string, timeoutMs = 15_000): Promise<ReceiptEvent> =>
    nextEvent(on, 'receipt', (r) => r.id === id && r.status === 'delivered', timeoutMs);

  it('sends a text again after two failed decryptions: shown once, then delivered', async () => {
    const to = await contact({ failDecryptNext: 2 });
    const id = `3EB0${'A'.repeat(19)}${addressing === 'lid' ? '1' : '2'}`;
    record.set(id, { to, content: { type: 'text', text: 'can you read me now?' } });
    const delivered = deliveredOn(driver, id);
    await driver.sendText(to, 'can you read me now?', { id });
    await delivered;
    expect(await waitForReceived(chat.control, to, id)).toMatchObject({ from: me, text: 'can you read me now?', repeats: 0 });
    expect(asked.filter((asked) => asked === id)).toHaveLength(2);
  });

  it('sends media again with its exact bytes, uploaded anew', async () => {
    const to = await contact({ failDecryptNext: 1 });
    const id = `3EB0${'B'.repeat(19)}${addressing === 'lid' ? '1' : '2'}`;
    const bytes = Buffer.from(`document bytes ${'y'.repeat(2000)} ${addressing}`);
    const media = { kind: 'document' as const, bytes, mimetype: 'application/pdf', filename: 'terms.pdf', caption: 'the terms' };
    record.set(id, { to, content: { type: 'media', media } });
    const delivered = deliveredOn(driver, id);
    await driver.sendMedia(to, media, { id });
    await delivered;
    expect(await waitForReceived(chat.control, to, id)).toMatchObject({
      type: 'document', filename: 'terms.pdf', caption: 'the terms', sha256: createHash('sha256').update(bytes).digest('hex'),
    });
  });

  it('answers a retry receipt that arrives after a restart, from the record, not from memory', async () => {
    // The phone gets the message (and fails) 1.5 s after it was sent: the session is down by then,
    // so the network holds the retry receipt until the next connection logs in.
    const to = await contact({ failDecryptNext: 1, deliverAfterMs: 1_500 });
    const id = `3EB0${'C'.repeat(19)}${addressing === 'lid' ? '1' : '2'}`;
    record.set(id, { to, content: { type: 'text', text: 'sent before the restart' } });
    await driver.sendText(to, 'sent before the restart', { id });
    await driver.stop();
    expect(await chat.control.messages(to)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 1_700));

    const restarted = chat.driver(sessionId, options);
    const delivered = deliveredOn(restarted, id);
    await restarted.start();
    await delivered;
    expect(await waitForReceived(chat.control, to, id)).toMatchObject({ text: 'sent before the restart', repeats: 0 });
    driver = restarted;
  });

  /** Sends `text` under `id` to `to`, whose phone asks for it again once: the ask is answered with nothing. */
  async function expectNotSentAgain(to: string, id: string, text: string): Promise<void> {
    const receipts: ReceiptEvent[] = [];
    driver.on('receipt', (r) => r.id === id && receipts.push(r));
    await driver.sendText(to, text, { id });
    await expect.poll(() => asked.includes(id), { timeout: 5_000 }).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await chat.control.messages(to)).toEqual([]);
    expect(receipts).toEqual([]);
  }

  it('does not send a message again to a contact it was not sent to (the record names another recipient)', async () => {
    const to = await contact({ failDecryptNext: 1 });
    const id = `3EB0${'E'.repeat(19)}${addressing === 'lid' ? '1' : '2'}`;
    record.set(id, { to: uniquePhone('1447'), content: { type: 'text', text: 'for someone else' } });
    await expectNotSentAgain(to, id, 'for someone else');
  });

  it('does not send an erased (or unknown) message again: nothing shown, never delivered', async () => {
    const to = await contact({ failDecryptNext: 1 });
    const id = `3EB0${'D'.repeat(19)}${addressing === 'lid' ? '1' : '2'}`;
    record.set(id, { to, content: { type: 'text', text: 'erased after sending' } });
    erased.add(id);
    await expectNotSentAgain(to, id, 'erased after sending');
  });

  it('reports a resend it could not make (the record out of reach): nothing shown, the failure named', async () => {
    const to = await contact({ failDecryptNext: 1 });
    const id = `3EB0${'F'.repeat(19)}${addressing === 'lid' ? '1' : '2'}`;
    unreadable.add(id);
    await expectNotSentAgain(to, id, 'asked again while messaging is away');
    expect(failedResends).toEqual([{ id, error: expect.objectContaining({ message: 'messaging did not answer' }) }]);
  });
});
