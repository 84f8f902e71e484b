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
