import { ApiError } from '@switchboard/contracts';
import { outcomeOf, processMetrics } from '@switchboard/telemetry';
import type {
  EraseContentsReply,
  FeedReply,
  FeedRequest,
  HistoryRequest,
  ListMessagesResult,
  MessageLookupView,
  MessageMediaRef,
  MessageRef,
  ReadyReply,
  RecordInboundCommand,
  RecordInboundReply,
  RecordReceiptsCommand,
  RecordReceiptsReply,
  SentContentReply,
  SentContentRequest,
} from '@switchboard/contracts';
import type { ContentEraser } from '../erasure/erase-contents.js';
import { recordInbound } from '../inbound/record-inbound.js';
import type { InboundDeps } from '../inbound/record-inbound.js';
import type { MessageStore } from '../application/message-store.js';
import { messageStatusView, statusFactsOf } from '../message/status-view.js';
import type { MessageStatusQueries } from '../projections/message-status/queries.js';
import { recordReceipts } from '../receipts/record-receipt.js';
import type { SendCall, SendPipeline, SendReply } from '../send/send-message.js';
import { sentContent } from '../send/sent-content.js';
import type { SendRequest } from '../send/prepare.js';

/** Everything the messaging service answers on the bus, without the bus (tests, embedded tools). */
export class MessagingApi {
  constructor(
    private readonly pipeline: SendPipeline,
    private readonly messages: MessageStore,
    private readonly statuses: MessageStatusQueries,
    private readonly readinessCheck: () => ReadyReply,
    private readonly readFeed: (request: FeedRequest) => Promise<FeedReply>,
    private readonly inbound: InboundDeps,
    private readonly eraser: ContentEraser,
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

  /**
   * The lookup: an outbound message from the status read model, else its stream (sent a moment
   * ago elsewhere); a received one from the history.
   */
  async get(ref: MessageRef): Promise<MessageLookupView> {
    await this.messages.caughtUp();
    const record = this.statuses.find(ref.accountId, ref.messageId);
    if (record !== null) return { ...record.view, direction: 'out' };
    const received = await this.inbound.history.find(ref.accountId, ref.messageId);
    if (received !== null && received.direction === 'in') return { ...received, direction: 'in' };
    const state = await this.messages.load(ref.messageId);
    if (state.status === 'absent' || state.accountId !== ref.accountId) throw new ApiError('MESSAGE_NOT_FOUND');
    return { ...messageStatusView(statusFactsOf(state)), direction: 'out' };
  }

  /** `sb.v1.messaging.recordInbound`: a contact's message, recorded once. */
  recordInbound(command: RecordInboundCommand): Promise<RecordInboundReply> {
    return recordInbound(command, this.inbound);
  }

  /** `sb.v1.messaging.history`: GET /v1/messages. */
  async history(request: HistoryRequest): Promise<ListMessagesResult> {
    await this.messages.caughtUp();
    return this.inbound.history.list(request);
  }

  /** `sb.v1.messaging.media`: where a message's media bytes are. */
  async media(ref: MessageRef): Promise<MessageMediaRef> {
    await this.messages.caughtUp();
    return this.inbound.history.media(ref.accountId, ref.messageId);
  }

  /** `sb.v1.messaging.eraseContents`: crypto-shredding of the account's message contents. */
  eraseContents(request: { accountId: string }, correlationId?: string): Promise<EraseContentsReply> {
    return this.eraser.erase(request.accountId, correlationId);
  }

  /** `sb.v1.messaging.recordReceipts`: delivery and read receipts from the network, recorded once each. */
  recordReceipts(command: RecordReceiptsCommand): Promise<RecordReceiptsReply> {
    return recordReceipts(command, { messages: this.messages, statuses: this.statuses });
  }

  /** `sb.v1.messaging.sentContent`: a sent message by its network id, for a resend the recipient asked for. */
  async sentContent(request: SentContentRequest): Promise<SentContentReply> {
    await this.messages.caughtUp();
    return sentContent(request, { messages: this.messages, statuses: this.statuses });
  }

  /** `sb.v1.messaging.feed`: public events of message facts after a position (events service). */
  feed(request: FeedRequest): Promise<FeedReply> {
    return this.readFeed(request);
  }
}
