import { ApiError } from '@switchboard/contracts';
import type { CreateSessionResult, DeleteSessionReply, SessionQrResult, SessionRef } from '@switchboard/contracts';
import type { Logger } from '@switchboard/telemetry';
import { SecretDecryptionError, ulid } from '@switchboard/service-kit';
import { SessionNotConnected, SessionNotFound, SessionNotPending } from '../session/errors.js';
import { isVisible } from '../session/state.js';
import type { VisibleSession } from '../session/state.js';
import type { SessionListQueries } from '../projections/session-list/queries.js';
import type { PairingCodeEvent, QrEvent } from '../chat/index.js';
import { NoPairingCodeError } from './live-connection.js';
import type { LiveConnection } from './live-connection.js';
import { qrDataUrl } from './qr.js';
import type { ConnectionRegistry } from './registry.js';
import { firstOutcome, ResumeQueue } from './resume-queue.js';
import { RESUME_TURN_TIMEOUT_MS } from './resume-turns.js';
import type { WaitingResume } from './resume-turns.js';
import type { SessionCommands } from './session-commands.js';
import type { SessionSlots } from './quota-slots.js';
import type { SessionOwnership } from '../replicas/ownership.js';

export interface ConnectionManagerDeps {
  registry: ConnectionRegistry;
  commands: SessionCommands;
  queries: SessionListQueries;
  slots: SessionSlots;
  /** Which replica holds which session. */
  ownership: SessionOwnership;
  logger: Logger;
  /** How long create waits for the network's first pairing code. */
  firstQrTimeoutMs: number;
  /** How many stored sessions resume at once (`SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY`). */
  resumeConcurrency: number;
}

/** What a create asks for beside the account: a name, and the number to pair by code for. */
export interface NewSession {
  name: string | null;
  /** Pair by code for this number too: the answer carries `pairingCode`. */
  phoneNumber?: string;
}

/** A new session id: `ses_` + ULID (time-sortable, unique). */
export const newSessionId = (): string => `ses_${ulid()}`;

/** Session lifecycle operations of the API: create, QR, delete, and restart recovery. */
export class ConnectionManager {
  /** Stored sessions waiting to resume here: connected on record, their connection not opened yet. */
  readonly resumes: ResumeQueue;

  constructor(private readonly deps: ConnectionManagerDeps) {
    const { logger } = deps;
    this.resumes = new ResumeQueue({
      concurrency: deps.resumeConcurrency,
      resume: (waiting) => this.resumeInTurn(waiting),
      onError: (error, sessionId) => logger.error({ err: error, sessionId }, 'session not resumed'),
      onDrained: (count, ms) => logger.info({ resumed: count, seconds: +(ms / 1000).toFixed(1) }, 'stored sessions resumed'),
    });
  }

  /**
   * Reserves a plan slot, records the session, starts pairing and answers with the first QR (and,
   * with a `phoneNumber`, the code to type on that phone). The id is minted by the caller (an
   * Idempotency-Key is bound to it first); slot and record are idempotent per id.
   */
  async create(accountId: string, { name, phoneNumber }: NewSession, sessionId: string): Promise<CreateSessionResult> {
    const { registry, commands, slots } = this.deps;
    // Recorded as this replica's before anything else, so no other replica takes it up meanwhile.
    return this.deps.ownership.claimNew(sessionId, accountId, async () => {
      await slots.reserve(accountId, sessionId);
      try {
        await commands.execute(sessionId, accountId, { type: 'CreateSession', sessionId, accountId, name });
      } catch (error) {
        await slots.release(accountId, sessionId);
        throw error;
      }
      const connection = registry.open(sessionId, accountId, 'pairing');
      connection.pairsByCode = phoneNumber !== undefined;
      const first = await this.firstPairing(connection, phoneNumber);
      // Pairing by code, the first answer is the code (the QR it followed is current).
      return this.pairingAnswer(connection, phoneNumber === undefined ? first : undefined);
    });
  }

  /**
   * The create answer of a pairing connection: the QR the network shows NOW (it may have rotated
   * since `firstQr`, or since the first answer), and the code to type when pairing by code.
   */
  private async pairingAnswer(connection: LiveConnection, firstQr?: QrEvent): Promise<CreateSessionResult> {
    const { pairingCode, sessionId } = connection;
    const current = connection.currentQr ?? firstQr;
    if (!current) throw new ApiError('SERVICE_UNAVAILABLE', 'No QR code is available for this session right now; retry shortly.');
    const qrCode = await qrDataUrl(current.code);
    return { sessionId, qrCode, ...(pairingCode ? { pairingCode: pairingCode.code } : {}), status: 'pending' };
  }

  /**
   * The create answer again, for a repeated Idempotency-Key: the QR the session shows NOW (codes
   * rotate, the first one may be dead). Once it is no longer pending there is no QR to show (codes
   * are never stored: they embed the device's pairing secret), so SESSION_NOT_PENDING with its
   * status and id. Undefined while the session is not recorded yet.
   */
  async answerAgain(ref: SessionRef): Promise<CreateSessionResult | undefined> {
    const session = await this.deps.commands.load(ref.sessionId);
    if (session.status === 'absent') return undefined;
    if (!isVisible(session) || session.accountId !== ref.accountId) throw new SessionNotFound();
    if (session.status !== 'pending') {
      const { status } = session;
      const message = `The session created with this Idempotency-Key (${ref.sessionId}) is ${status}; it shows no QR code any more.`;
      throw new ApiError('SESSION_NOT_PENDING', message, { status, sessionId: ref.sessionId });
    }
    const connection = this.owned(ref);
    if (!connection) throw new ApiError('SERVICE_UNAVAILABLE', 'No QR code is available for this session right now; retry shortly.');
    return this.pairingAnswer(connection);
  }

  async qr(ref: SessionRef): Promise<SessionQrResult> {
    const connection = this.owned(ref);
    const current = connection?.phase === 'pairing' ? connection.currentQr : undefined;
    if (current) return { qrCode: await qrDataUrl(current.code), expiresAt: current.expiresAt.toISOString() };
    const session = await this.visible(ref);
    if (session.status !== 'pending') throw new SessionNotPending(session.status);
    // Pending but not paired from this process (its pairing died with a restart and is being timed out).
    throw new ApiError('SERVICE_UNAVAILABLE', 'No QR code is available for this session right now; retry shortly.');
  }

  /** Logs the device out (bounded), wipes its credentials, records the deletion, frees the slot. */
  async delete(ref: SessionRef): Promise<DeleteSessionReply> {
    await this.visible(ref);
    const recorded = await this.deps.registry.end(ref, (loggedOut) => [{ type: 'DeleteSession', loggedOut }], { logout: true });
    const deleted = recorded.find((e) => e.type === 'SessionDeleted');
    if (!deleted || deleted.type !== 'SessionDeleted') throw new SessionNotFound();
    return { sessionId: ref.sessionId, deletedAt: deleted.data.deletedAt };
  }

  /**
   * After a restart: `connected` sessions queue to resume from their stored credentials (no scan)
   * in the background, a bounded number at a time; `pending` ones time out, because their QR codes
   * died with the old process's socket and nobody is looking at a new one (the client creates a
   * fresh session).
   */
  async restore(): Promise<{ resuming: number; timedOut: number }> {
    const tracked = this.deps.queries.withStatus(['connected', 'pending']).filter((s) => !this.deps.registry.get(s.sessionId));
    for (const { sessionId, accountId, status } of tracked) if (status === 'connected') this.resumes.add(sessionId, accountId);
    const stale = tracked.filter((s) => s.status === 'pending');
    for (const { sessionId, accountId } of stale) await this.timeOutStale(sessionId, accountId);
    return { resuming: tracked.length - stale.length, timedOut: stale.length };
  }

  /**
   * Takes up a session this replica now owns (a failover, a handover): a connected one queues to
   * resume from its stored credentials; a pending one times out (its QR code died with the other
   * replica's socket); any other has nothing to hold, and its owner record goes. Not one this
   * process is ending: its record still names this replica until the end is recorded.
   */
  async adopt(sessionId: string, accountId: string): Promise<void> {
    if (this.deps.registry.inHand(sessionId) || this.resumes.has(sessionId)) return;
    const session = await this.deps.commands.load(sessionId);
    // Its end may have begun while the stream was read.
    if (this.deps.registry.inHand(sessionId)) return;
    if (session.status === 'connected') return this.resumes.add(sessionId, accountId);
    if (session.status === 'pending') return this.timeOutStale(sessionId, accountId);
    await this.deps.ownership.release(sessionId);
  }

  /**
   * A queued session's turn: its driver starts from the stored credentials, unless meanwhile it
   * ended or went to another replica; the turn lasts until the connection's first outcome.
   */
  private async resumeInTurn({ sessionId, accountId }: WaitingResume): Promise<void> {
    const { registry, queries, ownership } = this.deps;
    if (registry.inHand(sessionId) || queries.statusOf(sessionId) !== 'connected' || ownership.ownerOf(sessionId) !== 'self') return;
    const connection = registry.open(sessionId, accountId, 'linked');
    const outcome = firstOutcome(connection.driver, RESUME_TURN_TIMEOUT_MS);
    try {
      await connection.driver.start();
    } catch (error) {
      outcome.cancel();
      return this.resumeFailed(connection, error);
    }
    await outcome.done;
  }

  private resumeFailed(connection: LiveConnection, error: unknown): void {
    const { sessionId } = connection;
    // The shared credentials store out of reach for a moment (not sealed with another key): let
    // go, and the owner takes the session up again on its next round; nothing is wiped.
    if (this.deps.ownership.retriesAdoption && !(error instanceof SecretDecryptionError)) {
      this.deps.logger.warn({ err: error, sessionId }, 'stored chat credentials not readable now; trying again shortly');
      return void this.deps.registry.letGo(sessionId);
    }
    this.deps.logger.error({ err: error, sessionId }, 'could not resume the session from its stored credentials');
    void this.deps.registry
      .end(connection, () => [{ type: 'MarkFailed', code: 'resume_failed', reason: 'stored chat credentials could not be used' }])
      .catch((closeError: unknown) => this.deps.logger.error({ err: closeError, sessionId }, 'recording the failure failed'));
  }

  private async timeOutStale(sessionId: string, accountId: string): Promise<void> {
    await this.deps.registry.end({ sessionId, accountId }, () => [{ type: 'MarkTimedOut' }]);
  }

  /**
   * The first pairing code (the first QR, or the code for `pairByCode`), or CHAT_NETWORK_ERROR
   * naming why there is none. The client never got this session's id, so it is not left behind:
   * the failure is recorded, then the session deleted.
   */
  private async firstPairing(connection: LiveConnection, pairByCode: string | undefined): Promise<QrEvent | PairingCodeEvent> {
    const { firstQrTimeoutMs, logger, registry } = this.deps;
    const waiting = connection.firstPairing(firstQrTimeoutMs);
    try {
      await connection.driver.start(pairByCode === undefined ? {} : { pairByCode });
      return await waiting;
    } catch (error) {
      waiting.catch(() => undefined);
      const failure = error instanceof NoPairingCodeError ? error.failure : undefined;
      const { sessionId, accountId } = connection;
      logger.warn({ sessionId, cause: failure?.cause ?? 'timeout', host: failure?.host, err: failure ? undefined : error }, 'no pairing code from the chat network');
      const why = failure ? `${failure.cause}: ${failure.detail}` : `no pairing code within ${firstQrTimeoutMs / 1000} s`;
      await registry.end({ sessionId, accountId }, () => [
        { type: 'MarkFailed', code: 'pairing_unavailable', reason: `the chat network issued no pairing code (${why})` },
        { type: 'DeleteSession', loggedOut: false },
      ]);
      const details = failure
        ? { cause: failure.cause, ...(failure.host ? { host: failure.host } : {}), detail: failure.detail }
        : { cause: 'timeout', timeoutMs: firstQrTimeoutMs };
      const message = failure ? `The chat network could not be reached (${failure.cause}: ${failure.detail}); retry later.` : 'The chat network did not issue a QR code in time; retry later.';
      throw new ApiError('CHAT_NETWORK_ERROR', message, details);
    }
  }

  /**
   * The session's linked connection in this process, for a request that needs the network now;
   * SESSION_NOT_FOUND, SESSION_NOT_CONNECTED, or (connected on record, not held here) a retryable 503.
   */
  async linked(ref: SessionRef): Promise<LiveConnection> {
    const connection = this.owned(ref);
    if (connection?.phase === 'linked') return connection;
    const { status } = await this.visible(ref);
    if (status === 'connected') throw new ApiError('SERVICE_UNAVAILABLE', "The session's connection is not available right now; retry shortly.");
    throw new SessionNotConnected(status);
  }

  /** The live connection of this session if it belongs to the caller's account. */
  private owned(ref: SessionRef): LiveConnection | undefined {
    const connection = this.deps.registry.get(ref.sessionId);
    return connection?.accountId === ref.accountId ? connection : undefined;
  }

  /** The session from its stream; unknown, deleted or foreign is SESSION_NOT_FOUND. */
  async visible(ref: SessionRef): Promise<VisibleSession> {
    const session = await this.deps.commands.load(ref.sessionId);
    if (!isVisible(session) || session.accountId !== ref.accountId) throw new SessionNotFound();
    return session;
  }
}
