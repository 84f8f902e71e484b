import type {
  ContactCheck,
  ContactCheckRequest,
  CreateSessionCommand,
  CreateSessionResult,
  DeleteAllSessionsReply,
  DeleteAllSessionsRequest,
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
import type { AccountSessions } from './connections/account-sessions.js';
import type { ConnectionManager } from './connections/connection-manager.js';
import { lookupFailure } from './connections/contact-checks.js';
import type { ContactChecks } from './connections/contact-checks.js';
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
    private readonly accounts: AccountSessions,
    private readonly contacts: ContactChecks,
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

  /** `sb.v1.sessions.deleteAll`: an account's closure, each session as `delete` does it. */
  async deleteAll(request: DeleteAllSessionsRequest): Promise<DeleteAllSessionsReply> {
    return { accountId: request.accountId, deleted: await this.accounts.deleteAll(request.accountId) };
  }

  /** `sb.v1.evt.account.AccountClosed`: the same, for a closure made where nobody could call us (the CLI on the store). */
  accountClosed(event: unknown): Promise<void> {
    return this.accounts.onAccountClosed(event);
  }

  qr(ref: SessionRef): Promise<SessionQrResult> {
    return this.manager.qr(ref);
  }

  /** `sb.v1.sessions.contact`: is the number on the network? Asked through the session's own connection. */
  async contact(request: ContactCheckRequest): Promise<ContactCheck> {
    const connection = await this.manager.linked(request);
    return this.contacts.check(request, (phone) => connection.driver.lookupContact(phone).catch((error: unknown) => Promise.reject(lookupFailure(error))));
  }

  send(command: DeliverMessageCommand): Promise<DeliverMessageReply> {
    return this.deliveries.deliver(command);
  }

  /** `sb.v1.sessions.feed`: public events of session facts after a position (events service). */
  feed(request: FeedRequest): Promise<FeedReply> {
    return this.publicFeed.read(request);
  }
}
