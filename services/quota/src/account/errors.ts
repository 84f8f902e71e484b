import { ApiError } from '@switchboard/contracts';

// Domain failures, each mapped to its public error code (api-decisions.md).

export class AccountNotFound extends ApiError {
  constructor() {
    super('ACCOUNT_NOT_FOUND');
  }
}

export class AccountAlreadyOpened extends ApiError {
  constructor() {
    super('VALIDATION_ERROR', 'This account is already open.');
  }
}

/**
 * A closed account takes no new session, message, key or change. FORBIDDEN (403): the request is
 * understood and the account exists (its reads still answer), but nothing may act for it any more.
 */
export class AccountIsClosed extends ApiError {
  constructor(accountId: string, closedAt: string) {
    super('FORBIDDEN', `Account ${accountId} was closed at ${closedAt}: it takes no new sessions, messages, keys or changes.`, { accountId, closedAt });
  }
}

export class KeyNotFound extends ApiError {
  constructor() {
    super('KEY_NOT_FOUND');
  }
}

export class SessionLimitReached extends ApiError {
  constructor(limit: number, used: number) {
    super('SESSION_LIMIT_REACHED', `The plan allows ${limit} concurrent session${limit === 1 ? '' : 's'}; ${used} in use.`, { limit, used });
  }
}

export class DailyMessageLimitReached extends ApiError {
  constructor(limit: number, used: number, resetsAt: string) {
    super('DAILY_MESSAGE_LIMIT_REACHED', `The plan allows ${limit} messages per day; the counter resets at ${resetsAt}.`, {
      limit,
      used,
      resetsAt,
    });
  }
}
