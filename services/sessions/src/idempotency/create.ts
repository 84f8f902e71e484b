import { ApiError } from '@switchboard/contracts';
import type { CreateSessionCommand, CreateSessionReply, CreateSessionResult } from '@switchboard/contracts';
import type { Logger } from '@switchboard/telemetry';
import { newSessionId } from '../connections/connection-manager.js';
import type { ConnectionManager, NewSession } from '../connections/connection-manager.js';
import type { IdempotencyKeys } from '@switchboard/service-kit';
import { currentInboundHeaders } from '@switchboard/bus';
import type { SessionKeyEvent } from '@switchboard/contracts';

/**
 * Longer than a create takes from its claim to `SessionCreated` (a quota round trip of at most
 * 5 s and one append): a claim this old whose session is still unrecorded lost its process.
 */
const RECORDING_GRACE_MS = 30_000;

/**
 * POST /v1/sessions with an Idempotency-Key: the key is claimed for a fresh session id BEFORE the
 * plan slot is reserved, so a retried create (after a 504, say) finds the claim and answers for
 * the first session instead of taking a second slot. Without a key, a plain create.
 */
export class IdempotentCreate {
  /** Creates running in this process, by session id: a retry that arrives meanwhile shares the answer. */
  private readonly inFlight = new Map<string, Promise<CreateSessionResult>>();

  constructor(
    private readonly keys: IdempotencyKeys<SessionKeyEvent>,
    private readonly manager: ConnectionManager,
    private readonly clock: () => Date,
    private readonly logger: Logger,
  ) {}

  async create(command: CreateSessionCommand): Promise<CreateSessionReply> {
    const { accountId, idempotency } = command;
    const wanted: NewSession = { name: command.name ?? null, ...(command.phoneNumber ? { phoneNumber: command.phoneNumber } : {}) };
    if (!idempotency) return this.manager.create(accountId, wanted, newSessionId());
    const claim = await this.keys.claim(accountId, idempotency, newSessionId(), correlationId());
    if (claim.kind === 'claim') return this.createOnce(accountId, wanted, idempotency.keyHash, claim.resourceId);
    const running = this.inFlight.get(claim.resourceId);
    if (running) return { ...(await running), replayed: true };
    const again = await this.manager.answerAgain({ accountId, sessionId: claim.resourceId });
    if (again) return { ...again, replayed: true };
    if (this.clock().getTime() - Date.parse(claim.claimedAt) < RECORDING_GRACE_MS) {
      throw new ApiError('SERVICE_UNAVAILABLE', 'The session for this Idempotency-Key is still being created; retry shortly.');
    }
    // Claimed, never recorded, not running here: its process stopped in between. Slot and session
    // are both idempotent per session id, so finishing the create with the bound id takes nothing twice.
    return { ...(await this.createOnce(accountId, wanted, idempotency.keyHash, claim.resourceId)), replayed: true };
  }

  /** Runs the create once per session id here; a failure frees the key (the client got an error). */
  private createOnce(accountId: string, wanted: NewSession, keyHash: string, sessionId: string): Promise<CreateSessionResult> {
    const running = this.manager
      .create(accountId, wanted, sessionId)
      .catch(async (error: unknown) => {
        const code = error instanceof ApiError ? error.code : 'INTERNAL_ERROR';
        await this.keys.release(accountId, keyHash, sessionId, code, correlationId()).catch((releaseError: unknown) => {
          this.logger.error({ err: releaseError, sessionId }, 'could not free the Idempotency-Key of a failed create');
        });
        throw error;
      })
      .finally(() => this.inFlight.delete(sessionId));
    this.inFlight.set(sessionId, running);
    return running;
  }
}

/** The request this create serves (the gateway's request id), for the key's events. */
const correlationId = (): string | undefined => currentInboundHeaders()?.['correlation-id'];
