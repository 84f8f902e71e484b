import { defineSubject } from '../bus/subject.js';
import { AccountView } from '../admin/http.js';
import { ApiKeyView } from './keys.js';
import {
  AccountRef,
  AuthenticateReply,
  AuthenticateRequest,
  CloseAccountReply,
  CreateAccountCommand,
  CreateAccountReply,
  CreateKeyCommand,
  DailyUsage,
  ListAccountsReply,
  ListAccountsRequest,
  ListKeysReply,
  RefundDailyReply,
  RefundDailyRequest,
  ReleaseSessionReply,
  ReserveDailyRequest,
  ReserveSessionReply,
  RevokeKeyCommand,
  RevokeKeyReply,
  SessionSlotRequest,
  UpdateAccountCommand,
} from './commands.js';

/** Request/reply subjects of the quota service (queue group `sb.v1.quota`). */
export const QuotaSubjects = {
  authenticate: defineSubject('sb.v1.quota.authenticate', AuthenticateRequest, AuthenticateReply),
  reserveSession: defineSubject('sb.v1.quota.reserveSession', SessionSlotRequest, ReserveSessionReply),
  releaseSession: defineSubject('sb.v1.quota.releaseSession', SessionSlotRequest, ReleaseSessionReply),
  reserveDaily: defineSubject('sb.v1.quota.reserveDaily', ReserveDailyRequest, DailyUsage),
  refundDaily: defineSubject('sb.v1.quota.refundDaily', RefundDailyRequest, RefundDailyReply),
  accounts: {
    create: defineSubject('sb.v1.quota.accounts.create', CreateAccountCommand, CreateAccountReply),
    get: defineSubject('sb.v1.quota.accounts.get', AccountRef, AccountView),
    list: defineSubject('sb.v1.quota.accounts.list', ListAccountsRequest, ListAccountsReply),
    update: defineSubject('sb.v1.quota.accounts.update', UpdateAccountCommand, AccountView),
    close: defineSubject('sb.v1.quota.accounts.close', AccountRef, CloseAccountReply),
  },
  keys: {
    create: defineSubject('sb.v1.quota.keys.create', CreateKeyCommand, ApiKeyView),
    list: defineSubject('sb.v1.quota.keys.list', AccountRef, ListKeysReply),
    revoke: defineSubject('sb.v1.quota.keys.revoke', RevokeKeyCommand, RevokeKeyReply),
  },
} as const;
