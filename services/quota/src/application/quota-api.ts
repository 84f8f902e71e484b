import { ApiError, utcDayOf } from '@switchboard/contracts';
import type {
  AccountRef, AccountView, ApiKeyView, AuthenticateReply, AuthenticateRequest, CloseAccountReply, CreateAccountCommand,
  CreateAccountReply, CreateKeyCommand, DailyUsage, ListAccountsReply, ListAccountsRequest, ListKeysReply, RefundDailyReply,
  RefundDailyRequest, ReleaseSessionReply, ReserveDailyRequest, ReserveSessionReply, RevokeKeyCommand, RevokeKeyReply,
  SessionSlotRequest, UpdateAccountCommand,
} from '@switchboard/contracts';
import { processMetrics } from '@switchboard/telemetry';
import { increasingUlid } from '@switchboard/service-kit';
import { AccountNotFound, KeyNotFound } from '../account/errors.js';
import type { Account } from '../account/state.js';
import type { KeyRecord, QuotaReadModel } from '../projections/read-model.js';
import type { CallContext, QuotaCommands } from './quota-core.js';

/**
 * One method per `QuotaSubjects` entry, taking and returning the contract types. The Nest
 * handlers and the CLI's embedded mode both call it. Queries answer from the read model, caught up
 * with the store's head first; account writes also return once the read model shows them.
 */
export class QuotaApi {
  /**
   * `catchUp` brings this process's read models up to the store's head: another replica or the
   * CLI may have written a moment ago (a key issued there and used here at once).
   */
  constructor(
    private readonly commands: QuotaCommands,
    private readonly readModel: QuotaReadModel,
    private readonly catchUp: (scope: 'accounts' | 'all') => Promise<void>,
  ) {}

  async authenticate(request: AuthenticateRequest): Promise<AuthenticateReply> {
    await this.catchUp('accounts');
    const key = this.readModel.keyByHash(request.keyHash);
    // Unknown and revoked keys look the same to the caller.
    if (!key || key.revokedAt !== null) throw new ApiError('UNAUTHORIZED');
    return { accountId: key.accountId, keyId: key.keyId, scopes: key.scopes, plan: key.plan };
  }

  reserveSession(request: SessionSlotRequest, ctx?: CallContext): Promise<ReserveSessionReply> {
    return countRejection(this.commands.reserveSession(request, ctx));
  }

  releaseSession(request: SessionSlotRequest, ctx?: CallContext): Promise<ReleaseSessionReply> {
    return this.commands.releaseSession(request, ctx);
  }

  reserveDaily(request: ReserveDailyRequest, ctx?: CallContext): Promise<DailyUsage> {
    return countRejection(this.commands.reserveDaily(request.accountId, request.messageId, ctx));
  }

  refundDaily(request: RefundDailyRequest, ctx?: CallContext): Promise<RefundDailyReply> {
    return this.commands.refundDaily(request.accountId, request.messageId, request.day, ctx);
  }

  async createAccount(command: CreateAccountCommand, ctx?: CallContext): Promise<CreateAccountReply> {
    await this.catchUp('accounts');
    if (command.key) this.assertNewKey(command.key.keyHash);
    return this.commands.openAccount(command, ctx);
  }

  async getAccount(request: AccountRef): Promise<AccountView> {
    await this.catchUp('all');
    return this.accountNow(request);
  }

  private accountNow(request: AccountRef): AccountView {
    const account = this.readModel.account(request.accountId, utcDayOf(this.commands.now()));
    if (!account) throw new AccountNotFound();
    return account;
  }

  async listAccounts(request: ListAccountsRequest): Promise<ListAccountsReply> {
    await this.catchUp('all');
    return this.readModel.accounts(utcDayOf(this.commands.now()), request.limit, request.offset);
  }

  async updateAccount(command: UpdateAccountCommand, ctx?: CallContext): Promise<AccountView> {
    await this.commands.execute(command.accountId, (now) => ({ type: 'UpdateAccount', plan: command.plan, name: command.name, now }), ctx);
    return this.getAccount(command);
  }

  /**
   * Revokes the account's working keys and records its closure (one append); closing again
   * answers the first `closedAt` and revokes nothing. Its sessions are the sessions service's.
   */
  async closeAccount(command: AccountRef, ctx?: CallContext): Promise<CloseAccountReply> {
    const { view: closedAt, events } = await this.commands.execute(command.accountId, (now) => ({ type: 'CloseAccount', now }), ctx, closedAtOf);
    const keysRevoked = events.flatMap((event) => (event.type === 'ApiKeyRevoked' ? [event.data.keyId] : []));
    return { accountId: command.accountId, closedAt, keysRevoked };
  }

  async createKey(command: CreateKeyCommand, ctx?: CallContext): Promise<ApiKeyView> {
    await this.catchUp('accounts');
    this.assertNewKey(command.keyHash);
    // Increasing within a millisecond too: an account's keys are listed by id, in the order issued.
    const keyId = `key_${increasingUlid()}`;
    await this.commands.execute(command.accountId, (now) => ({ type: 'IssueKey', keyId, keyHash: command.keyHash, scopes: command.scopes, now }), ctx);
    return view(this.mustFindKey(keyId));
  }

  async listKeys(request: AccountRef): Promise<ListKeysReply> {
    await this.catchUp('accounts');
    this.accountNow(request);
    return { keys: this.readModel.keysOf(request.accountId).map(view) };
  }

  async revokeKey(command: RevokeKeyCommand, ctx?: CallContext): Promise<RevokeKeyReply> {
    await this.catchUp('accounts');
    const key = this.mustFindKey(command.keyId);
    await this.commands.execute(key.accountId, (now) => ({ type: 'RevokeKey', keyId: command.keyId, now }), ctx);
    const revoked = this.mustFindKey(command.keyId);
    return { keyId: revoked.keyId, accountId: revoked.accountId, revokedAt: revoked.revokedAt! };
  }

  /** The key registered under a hash, revoked or not (bootstrap checks). */
  async keyRecordByHash(keyHash: string): Promise<KeyRecord | undefined> {
    await this.catchUp('accounts');
    return this.readModel.keyByHash(keyHash);
  }

  private mustFindKey(keyId: string): KeyRecord {
    const key = this.readModel.keyById(keyId);
    if (!key) throw new KeyNotFound();
    return key;
  }

  /** A hash already registered would make authentication ambiguous (two accounts, one key). */
  private assertNewKey(keyHash: string): void {
    if (this.readModel.keyByHash(keyHash)) {
      throw new ApiError('VALIDATION_ERROR', 'This API key is already registered.', [{ path: 'keyHash', message: 'already registered' }]);
    }
  }
}

function closedAtOf(state: Account): string {
  if (state.status !== 'closed') throw new Error('the account is not closed right after closing it');
  return state.closedAt;
}

function view(key: KeyRecord): ApiKeyView {
  return { keyId: key.keyId, accountId: key.accountId, scopes: key.scopes, createdAt: key.createdAt, revokedAt: key.revokedAt };
}

/** Plan limits as `switchboard_quota_rejections_total{kind}`. */
const REJECTION_KINDS: Readonly<Record<string, string>> = { DAILY_MESSAGE_LIMIT_REACHED: 'daily_messages', SESSION_LIMIT_REACHED: 'sessions' };

async function countRejection<T>(reservation: Promise<T>): Promise<T> {
  try {
    return await reservation;
  } catch (error) {
    const kind = error instanceof ApiError ? REJECTION_KINDS[error.code] : undefined;
    if (kind) processMetrics().quotaRejections.inc({ kind });
    throw error;
  }
}
