import type {
  CreateSessionCommand,
  CreateSessionResult,
  DeleteSessionReply,
  DeliverMessageCommand,
  DeliverMessageReply,
  FeedReply,
  FeedRequest,
  ListSessionsRequest,
  ListSessionsResult,
  ReadyReply,
  SessionQrResult,
  SessionRef,
  SessionView,
} from '@switchboard/contracts';
import type { ConnectionManager } from './connections/connection-manager.js';
import type { Deliveries } from './connections/deliveries.js';
import type { SessionFeed } from './feed/feed.js';
import type { IdempotentCreate } from './idempotency/create.js';
import type { SessionListQueries } from './projections/session-list/queries.js';
import { SessionNotFound } from './session/errors.js';

/** What the sessions service answers on the bus, one method per subject (requests already parsed). */
export class SessionsApi {
  constructor(
    private readonly manager: ConnectionManager,
    private readonly creator: IdempotentCreate,
    private readonly deliveries: Deliveries,
    private readonly queries: SessionListQueries,
    readonly readiness: () => ReadyReply,
    private readonly publicFeed: SessionFeed,
  ) {}

  create(command: CreateSessionCommand): Promise<CreateSessionResult> {
    return this.creator.create(command);
  }

  get(ref: SessionRef): SessionView {
    const view = this.queries.get(ref.accountId, ref.sessionId);
    if (!view) throw new SessionNotFound();
    return view;
  }

  list(request: ListSessionsRequest): ListSessionsResult {
    return this.queries.list(request);
  }

  delete(ref: SessionRef): Promise<DeleteSessionReply> {
    return this.manager.delete(ref);
  }

  qr(ref: SessionRef): Promise<SessionQrResult> {
    return this.manager.qr(ref);
  }

  send(command: DeliverMessageCommand): Promise<DeliverMessageReply> {
    return this.deliveries.deliver(command);
  }

  /** `sb.v1.sessions.feed`: public events of session facts after a position (events service). */
  feed(request: FeedRequest): Promise<FeedReply> {
    return this.publicFeed.read(request);
  }
}
