import { EventsSubjects, MessagingSubjects, QuotaSubjects, SessionsSubjects } from '@switchboard/contracts';
import type {
  AccountRef, AccountView, ApiKeyView, CloseAccountReply, CreateAccountCommand, CreateAccountReply, CreateKeyCommand, EraseAccountResult,
  ListAccountsReply, ListAccountsRequest, ListKeysReply, ReplyOf, RequestOf, RevokeKeyCommand, RevokeKeyReply, SubjectContract,
  UpdateAccountCommand,
} from '@switchboard/contracts';
import { callService } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { eraseRecordedContents } from '@switchboard/events';
import { eraseAccountContents } from '@switchboard/messaging';
import type { QuotaApi } from '@switchboard/quota';
import type { SwitchboardConfig } from '@switchboard/service-kit';

/**
 * What closing did. `sessionsDeleted` is null when the CLI worked on the store: no bus reaches the
 * running server then, whose sessions service deletes them on the AccountClosed fact it publishes.
 */
export interface ClosedAccount extends CloseAccountReply {
  sessionsDeleted: string[] | null;
}

/** What the CLI asks of the services (over NATS), or of the quota domain on its store. */
export interface AdminClient {
  createAccount(command: CreateAccountCommand): Promise<CreateAccountReply>;
  listAccounts(request: ListAccountsRequest): Promise<ListAccountsReply>;
  updateAccount(command: UpdateAccountCommand): Promise<AccountView>;
  closeAccount(request: AccountRef): Promise<ClosedAccount>;
  /** Crypto-shredding of the account's message contents, as POST /v1/admin/accounts/{id}/erase. */
  eraseAccount(request: AccountRef): Promise<EraseAccountResult>;
  createKey(command: CreateKeyCommand): Promise<ApiKeyView>;
  listKeys(request: AccountRef): Promise<ListKeysReply>;
  revokeKey(command: RevokeKeyCommand): Promise<RevokeKeyReply>;
}

const timeoutMs = 15_000;
/** As the admin DELETE waits: every session is logged out of the network, 8 at a time. */
const deleteAllTimeoutMs = 60_000;
/** As the admin POST …/erase waits: the account's messages are read to find their media first. */
const eraseTimeoutMs = 120_000;

/** Distributed mode: requests to the services (any replica) over the bus, the subjects the gateway uses. */
export function busClient(bus: Bus): AdminClient {
  const ask = async <C extends SubjectContract>(contract: C, data: RequestOf<C>, deadline = timeoutMs): Promise<ReplyOf<C>> =>
    callService(bus, contract, data, { timeoutMs: deadline });
  const S = QuotaSubjects;
  return {
    createAccount: (c) => ask(S.accounts.create, c),
    listAccounts: (r) => ask(S.accounts.list, r),
    updateAccount: (c) => ask(S.accounts.update, c),
    closeAccount: async (r) => {
      // Quota first, as the admin DELETE does: no key works and nothing new starts from here on.
      const closed = await ask(S.accounts.close, r);
      const { deleted } = await ask(SessionsSubjects.deleteAll, r, deleteAllTimeoutMs);
      return { ...closed, sessionsDeleted: deleted };
    },
    eraseAccount: async (r) => {
      await ask(S.accounts.get, r);
      // Messaging first, as the admin POST does: the keys are gone before the copies are rewritten.
      const erased = await ask(MessagingSubjects.eraseContents, r, eraseTimeoutMs);
      const copies = await ask(EventsSubjects.eraseContents, { accountId: r.accountId, erasedAt: erased.erasedAt });
      return { ...erased, publicEventsErased: copies.eventsErased };
    },
    createKey: (c) => ask(S.keys.create, c),
    listKeys: (r) => ask(S.keys.list, r),
    revokeKey: (c) => ask(S.keys.revoke, c),
  };
}

/**
 * Embedded mode: the quota domain itself, on the event store in the data directory; an erasure
 * works on the messaging and events stores of the data directory directly.
 */
export function embeddedClient(api: QuotaApi, config: SwitchboardConfig): AdminClient {
  return {
    createAccount: (c) => api.createAccount(c),
    listAccounts: (r) => api.listAccounts(r),
    updateAccount: (c) => api.updateAccount(c),
    closeAccount: async (r) => ({ ...(await api.closeAccount(r)), sessionsDeleted: null }),
    eraseAccount: async (r) => {
      await api.getAccount(r);
      const erased = await eraseAccountContents(config, r.accountId);
      return { ...erased, publicEventsErased: eraseRecordedContents(config, r.accountId, erased.erasedAt).eventsErased };
    },
    createKey: (c) => api.createKey(c),
    listKeys: (r) => api.listKeys(r),
    revokeKey: (c) => api.revokeKey(c),
  };
}
