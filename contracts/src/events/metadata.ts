import { z } from 'zod';
import { AccountId, CorrelationId } from '../common/ids.js';
import { Traceparent } from '../common/headers.js';
import { IsoTimestamp } from '../common/time.js';

/**
 * Metadata stored with every event. `correlationId` ties together everything one request caused;
 * `causationId` is the id of the command or event that directly caused this one; `traceparent`
 * continues the OpenTelemetry trace when tracing is on. Never anything secret.
 */
export const EventMetadata = z.object({
  accountId: AccountId,
  correlationId: CorrelationId,
  causationId: CorrelationId,
  traceparent: Traceparent.optional(),
  occurredAt: IsoTimestamp,
});
export type EventMetadata = z.infer<typeof EventMetadata>;
