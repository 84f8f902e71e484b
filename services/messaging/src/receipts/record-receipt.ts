import { chatReceiptRef } from '@switchboard/contracts';
import type { RecordReceiptCommand, RecordReceiptReply, RecordReceiptsCommand, RecordReceiptsReply } from '@switchboard/contracts';
import { processMetrics, runInSpan, secondsBetween, spanContextFromTraceparent } from '@switchboard/telemetry';
import { sleep } from '../application/clock.js';
import type { MessageStore } from '../application/message-store.js';
import type { Message } from '../message/state.js';
import type { MessageStatusQueries } from '../projections/message-status/queries.js';

export interface ReceiptOptions {
  messages: MessageStore;
  statuses: MessageStatusQueries;
}

/**
 * How long a receipt waits for its network id to become known (a fast recipient can answer before
 * the sender's MessageSent reached the read model): well inside the 5 s sessions waits for the
 * call, so a receipt for a message we never sent (one the phone sent itself) is answered "not
 * ours" in time instead of timing out and coming back again and again.
 */
const RECEIPT_MATCH_WITHIN_MS = 3_000;

/**
 * The receipts sessions forwarded in one call, each matched to our message by the network's id
 * and recorded. Receipts of different messages are recorded side by side (their appends share the
 * store's commits); a message's own receipts one after the other, in the order given, so a
 * delivery and a read that arrive together never race on its stream; its network id is looked up
 * once. A failure fails the call once every receipt's work ended: sessions sends them all again,
 * and each is recorded once.
 */
export async function recordReceipts(command: RecordReceiptsCommand, o: ReceiptOptions): Promise<RecordReceiptsReply> {
  const results: RecordReceiptReply[] = new Array(command.receipts.length);
  // The sends they are about were recorded here: their network ids are in the read model once it caught up.
  await o.messages.caughtUp();
  // One account per call (the contract says so): a message is its session and network id.
  const byMessage = new Map<string, number[]>();
  command.receipts.forEach((receipt, i) => {
    const key = `${receipt.sessionId} ${receipt.networkMessageId}`;
    const indexes = byMessage.get(key);
    if (indexes) indexes.push(i);
    else byMessage.set(key, [i]);
  });
  const outcomes = await Promise.allSettled([...byMessage.values()].map(async (indexes) => {
    const messageId = await matchNetworkId(command.receipts[indexes[0]!]!, o.statuses, RECEIPT_MATCH_WITHIN_MS);
    for (const i of indexes) results[i] = messageId === null ? { messageId: null, applied: false } : await recordReceipt(command.receipts[i]!, messageId, o);
  }));
  const failed = outcomes.find((outcome) => outcome.status === 'rejected');
  if (failed) throw failed.reason;
  return { results };
}

/** A delivery/read receipt of our message `messageId`, recorded. Idempotent and never backwards (the aggregate decides). */
async function recordReceipt(command: RecordReceiptCommand, messageId: string, o: ReceiptOptions): Promise<RecordReceiptReply> {
  return runInSpan('record receipt', {}, async (span) => {
    // Minutes may have passed since the send: the receipt's span LINKS to the send's. The stream
    // is read for it only when spans are recorded (tracing off costs nothing here).
    if (span.isRecording()) {
      const sent = spanContextFromTraceparent(await o.messages.traceparent(messageId, 'MessageSent'));
      if (sent) span.addLink({ context: sent });
    }
    span.setAttributes({ 'chat.receipt': command.receipt, 'switchboard.message.id': messageId });
    const cause = chatReceiptRef(command.receipt, command.networkMessageId);
    const result = await o.messages.execute(messageId, command.accountId, { type: 'RecordReceipt', receipt: command.receipt }, undefined, cause);
    if (result.events.length > 0) observeDeliveryLatency(result.state, command.receipt);
    return { messageId, applied: result.events.length > 0 };
  });
}

/** `switchboard_delivery_latency_seconds{receipt}`: from the network's acknowledgement to the receipt. */
function observeDeliveryLatency(state: Message, receipt: RecordReceiptCommand['receipt']): void {
  if (state.status !== 'delivered' && state.status !== 'read') return;
  const seconds = secondsBetween(state.sentAt, receipt === 'read' && state.status === 'read' ? state.readAt : state.deliveredAt);
  if (seconds !== undefined) processMetrics().deliveryLatency.observe({ receipt }, seconds);
}

/**
 * Looks the network id up, then again with growing pauses for up to `withinMs`: a receipt for a
 * message sent a moment ago is matched within milliseconds, while one for a message we never sent
 * (the phone's own) costs a handful of lookups, not a hundred.
 */
export async function matchNetworkId(
  command: Pick<RecordReceiptCommand, 'accountId' | 'sessionId' | 'networkMessageId'>,
  statuses: MessageStatusQueries,
  withinMs: number,
): Promise<string | null> {
  const giveUpAt = Date.now() + withinMs;
  for (let pause = 25; ; pause = Math.min(pause * 2, 1_000)) {
    const found = statuses.messageIdOfNetworkId(command.accountId, command.sessionId, command.networkMessageId);
    if (found !== null || Date.now() >= giveUpAt) return found;
    await sleep(Math.min(pause, Math.max(0, giveUpAt - Date.now())));
  }
}
