import { z } from 'zod';
import { AccountId, CorrelationId } from '../common/ids.js';
import { Traceparent } from '../common/headers.js';
import { IsoTimestamp } from '../common/time.js';

/**
 * Metadata stored with every event. `correlationId` ties together everything one request caused;
 * `causationId` names what directly caused this one: the client's request (its id, the same as
 * the correlation id), a stored event (`eventRef`: `message-msg_…@0`), or a report from the chat
 * network (`chatReceiptRef`); `traceparent` continues the OpenTelemetry trace when tracing is on.
 * Never anything secret.
 */
export const EventMetadata = z.object({
  accountId: AccountId,
  correlationId: CorrelationId,
  causationId: CorrelationId,
  traceparent: Traceparent.optional(),
  occurredAt: IsoTimestamp,
});
export type EventMetadata = z.infer<typeof EventMetadata>;

/** A stored event as a causation id: its stream and revision (`message-msg_…@0`), unique and stable. */
export function eventRef(stream: string, revision: bigint | number): string {
  return `${stream}@${revision}`;
}

/** A receipt from the chat network as a causation id (`chat-receipt:read:3EB0…`). */
export function chatReceiptRef(receipt: string, networkMessageId: string): string {
  return `chat-receipt:${receipt}:${networkMessageId}`;
}
