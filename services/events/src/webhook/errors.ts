import { ApiError, MAX_WEBHOOKS_PER_ACCOUNT } from '@switchboard/contracts';

/** No such webhook for this account: absent, deleted, or another account's (all look the same). */
export class WebhookNotFound extends ApiError {
  constructor() {
    super('WEBHOOK_NOT_FOUND');
  }
}

export class WebhookLimitReached extends ApiError {
  constructor() {
    super('WEBHOOK_LIMIT_REACHED', undefined, { limit: MAX_WEBHOOKS_PER_ACCOUNT });
  }
}
