import { MessagingSubjects } from '@switchboard/contracts';
import type { RecordReceiptCommand } from '@switchboard/contracts';
import { RemoteError } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { SpanKind, runInRootSpan, withLogFields } from '@switchboard/telemetry';
import type { Logger } from '@switchboard/telemetry';

const RECEIPT_TIMEOUT_MS = 5_000;
// Also while messaging has no responder: a killed messaging process is back within seconds, and
// what the network told us only once must not be dropped meanwhile (waits add up to about 40 s).
const ATTEMPTS = 12;
const MAX_WAIT_MS = 5_000;

/**
 * Forwards delivery/read receipts to the messaging service. A request, not a publish: core NATS
 * publishes are fire-and-forget, and a receipt lost there would leave a message `sent` forever.
 * Retried with backoff while messaging is slow, unreachable or has no responder (restarting),
 * for about 40 s; then, or on a refusal, the receipt is logged and dropped (not awaited, so it
 * never blocks the connection).
 */
export class ReceiptForwarder {
  constructor(
    private readonly bus: Bus,
    private readonly logger: Logger,
  ) {}

  /**
   * A receipt is news from the network, not part of any request: it starts a trace of its own
   * (messaging links it to the send), with the account on its log lines.
   */
  forward(receipt: RecordReceiptCommand): Promise<void> {
    const attributes = { 'chat.receipt': receipt.receipt, 'chat.session.id': receipt.sessionId };
    return withLogFields({ account_id: receipt.accountId }, () =>
      runInRootSpan(`chat receipt ${receipt.receipt}`, { kind: SpanKind.CONSUMER, attributes }, () => this.forwardWithRetries(receipt)),
    );
  }

  private async forwardWithRetries(receipt: RecordReceiptCommand): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.bus.request(MessagingSubjects.recordReceipt.subject, receipt, { timeoutMs: RECEIPT_TIMEOUT_MS });
        return;
      } catch (error) {
        if (error instanceof RemoteError || attempt >= ATTEMPTS) {
          this.logger.warn({ err: error, sessionId: receipt.sessionId, receipt: receipt.receipt }, 'receipt not recorded by messaging');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(200 * 2 ** attempt, MAX_WAIT_MS)));
      }
    }
  }
}
