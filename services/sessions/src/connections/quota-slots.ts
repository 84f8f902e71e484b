import { ApiError, QuotaSubjects } from '@switchboard/contracts';
import type { ReserveSessionReply } from '@switchboard/contracts';
import { callService, ServiceCallError } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import type { Logger } from '@switchboard/telemetry';

const QUOTA_TIMEOUT_MS = 5_000;
const RELEASE_ATTEMPTS = 4;

/**
 * Plan slots for concurrent sessions, held by the quota service. Reserving is on the create
 * path (its refusal is the caller's answer); releasing follows a state change that already
 * happened, so it is retried and, failing that, logged: it is idempotent per session id.
 */
export class SessionSlots {
  constructor(
    private readonly bus: Bus,
    private readonly logger: Logger,
    private readonly timeoutMs = QUOTA_TIMEOUT_MS,
  ) {}

  /**
   * @throws ApiError SESSION_LIMIT_REACHED (`{limit, used}`) or SERVICE_UNAVAILABLE. A reservation
   * that may have been made though no answer came (a timeout) is released in the background: the
   * session it was for is not created, and a retry gets another id (and slot).
   */
  async reserve(accountId: string, sessionId: string): Promise<ReserveSessionReply> {
    try {
      return await callService(this.bus, QuotaSubjects.reserveSession, { accountId, sessionId }, { timeoutMs: this.timeoutMs, accountId });
    } catch (error) {
      // A refusal keeps its public code; anything else (no answer, a bug there) the caller may retry.
      if (error instanceof ServiceCallError && error.outcome === 'refused') throw error;
      // Sent after the reservation on the same connection, it reaches quota after it.
      if (!(error instanceof ServiceCallError && error.outcome === 'not_delivered')) void this.release(accountId, sessionId);
      throw new ApiError('SERVICE_UNAVAILABLE', 'The quota service did not answer; retry later.');
    }
  }

  async release(accountId: string, sessionId: string): Promise<void> {
    for (let attempt = 1; attempt <= RELEASE_ATTEMPTS; attempt++) {
      try {
        await callService(this.bus, QuotaSubjects.releaseSession, { accountId, sessionId }, { timeoutMs: this.timeoutMs, accountId });
        return;
      } catch (error) {
        if (attempt === RELEASE_ATTEMPTS) {
          this.logger.error({ err: error, sessionId, accountId }, 'could not release the session slot; the quota service still counts it');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, 250 * 2 ** attempt));
      }
    }
  }
}
