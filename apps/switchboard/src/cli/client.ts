import { QuotaSubjects } from '@switchboard/contracts';
import type {
  AccountRef, AccountView, ApiKeyView, CreateAccountCommand, CreateAccountReply, CreateKeyCommand, ListAccountsReply,
  ListAccountsRequest, ListKeysReply, ReplyOf, RequestInput, RevokeKeyCommand, RevokeKeyReply, SetPlanCommand, SubjectContract,
} from '@switchboard/contracts';
import type { Bus } from '@switchboard/bus';
import type { QuotaApi } from '@switchboard/quota';

/** What the CLI asks of the quota service, over NATS or directly on the store. */
export interface QuotaClient {
  createAccount(command: CreateAccountCommand): Promise<CreateAccountReply>;
  listAccounts(request: ListAccountsRequest): Promise<ListAccountsReply>;
  setPlan(command: SetPlanCommand): Promise<AccountView>;
  createKey(command: CreateKeyCommand): Promise<ApiKeyView>;
  listKeys(request: AccountRef): Promise<ListKeysReply>;
  revokeKey(command: RevokeKeyCommand): Promise<RevokeKeyReply>;
}

const timeoutMs = 15_000;

/** Distributed mode: requests to the quota service (any replica) over the bus. */
export function busClient(bus: Bus): QuotaClient {
  const ask = async <C extends SubjectContract>(contract: C, data: RequestInput<C>): Promise<ReplyOf<C>> =>
    contract.reply.parse((await bus.request(contract.subject, data, { timeoutMs })).data) as ReplyOf<C>;
  const S = QuotaSubjects;
  return {
    createAccount: (c) => ask(S.accounts.create, c),
    listAccounts: (r) => ask(S.accounts.list, r),
    setPlan: (c) => ask(S.accounts.setPlan, c),
    createKey: (c) => ask(S.keys.create, c),
    listKeys: (r) => ask(S.keys.list, r),
    revokeKey: (c) => ask(S.keys.revoke, c),
  };
}

/** Embedded mode: the quota domain itself, on the event store in the data directory. */
export function embeddedClient(api: QuotaApi): QuotaClient {
  return {
    createAccount: (c) => api.createAccount(c),
    listAccounts: (r) => api.listAccounts(r),
    setPlan: (c) => api.setPlan(c),
    createKey: (c) => api.createKey(c),
    listKeys: (r) => api.listKeys(r),
    revokeKey: (c) => api.revokeKey(c),
  };
}
