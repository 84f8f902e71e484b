import { ApiError } from '@switchboard/contracts';
import { outcomeOf, processMetrics } from '@switchboard/telemetry';
import type { FeedReply, FeedRequest, MessageRef, MessageStatusView, ReadyReply, RecordReceiptCommand, RecordReceiptReply } from '@switchboard/contracts';
import type { MessageStore } from '../application/message-store.js';
import { viewOfState } from '../application/message-store.js';
import type { MessageStatusQueries } from '../projections/message-status/queries.js';
import { recordReceipt } from '../receipts/record-receipt.js';
import type { SendCall, SendPipeline, SendReply } from '../send/send-message.js';
import type { SendRequest } from '../send/prepare.js';

/** Everything the messaging service answers on the bus, without the bus (tests, embedded tools). */
export class MessagingApi {
  constructor(
    private readonly pipeline: SendPipeline,
    private readonly messages: MessageStore,
    private readonly statuses: MessageStatusQueries,
    private readonly readinessCheck: () => ReadyReply,
    private readonly readFeed: (request: FeedRequest) => Promise<FeedReply>,
  ) {}

  /** `sb.v1.messaging.ready`: what the gateway's /readyz reports for this service. */
  readiness(): ReadyReply {
    return this.readinessCheck();
  }

  /** Counted in `switchboard_sends_total{type, outcome}`: `sent`, `pending` or the error code. */
  async send(request: SendRequest, call: SendCall): Promise<SendReply> {
    const sends = processMetrics().sends;
    try {
      const reply = await this.pipeline.send(request, call);
      sends.inc({ type: request.kind, outcome: reply.status });
      return reply;
    } catch (error) {
      sends.inc({ type: request.kind, outcome: outcomeOf(error) });
      throw error;
    }
  }

  /** The status lookup: the read model, else the stream (a message sent a moment ago elsewhere). */
  async get(ref: MessageRef): Promise<MessageStatusView> {
    const record = this.statuses.find(ref.accountId, ref.messageId);
    if (record !== null) return record.view;
    const state = await this.messages.load(ref.messageId);
    if (state.status === 'absent' || state.accountId !== ref.accountId) throw new ApiError('MESSAGE_NOT_FOUND');
    return viewOfState(state);
  }

  recordReceipt(command: RecordReceiptCommand): Promise<RecordReceiptReply> {
    return recordReceipt(command, { messages: this.messages, statuses: this.statuses });
  }

  /** `sb.v1.messaging.feed`: public events of message facts after a position (events service). */
  feed(request: FeedRequest): Promise<FeedReply> {
    return this.readFeed(request);
  }
}
