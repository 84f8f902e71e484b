import { SessionsSubjects } from '@switchboard/contracts';
import type { ContactCheck, CreateSessionResult, DeleteSessionReply, DeliverMessageReply, SessionQrResult } from '@switchboard/contracts';
import { parseRequest } from '@switchboard/bus';
import type { BusMessage } from '@switchboard/bus';
import type { SessionsApi } from './api.js';
import type { RoutedVerb, SessionRouter } from './replicas/session-router.js';

/**
 * The requests that need the replica holding the session, each parsed at this edge and taken
 * there by the router: from the `sessions` queue group, or forwarded to this replica's own
 * subject by another replica (`forwarded`). One method per subject, used by both.
 */
export class SessionRequests {
  constructor(
    private readonly api: SessionsApi,
    private readonly router: SessionRouter,
  ) {}

  /** Placed on the least-loaded replica; parsed there (its id is minted there). */
  create(message: BusMessage): Promise<CreateSessionResult> {
    return this.router.create(message, () => this.api.create(parseRequest(SessionsSubjects.create, message)));
  }

  qr(message: BusMessage): Promise<SessionQrResult> {
    const ref = parseRequest(SessionsSubjects.qr, message);
    return this.router.session('qr', ref.sessionId, message, () => this.api.qr(ref));
  }

  delete(message: BusMessage): Promise<DeleteSessionReply> {
    const ref = parseRequest(SessionsSubjects.delete, message);
    return this.router.session('delete', ref.sessionId, message, () => this.api.delete(ref));
  }

  contact(message: BusMessage): Promise<ContactCheck> {
    const request = parseRequest(SessionsSubjects.contact, message);
    return this.router.session('contact', request.sessionId, message, () => this.api.contact(request));
  }

  send(message: BusMessage): Promise<DeliverMessageReply> {
    const command = parseRequest(SessionsSubjects.send, message);
    return this.router.session('send', command.sessionId, message, () => this.api.send(command));
  }

  /** A request another replica forwarded here: a create placed here is made here. */
  forwarded(verb: RoutedVerb, message: BusMessage): Promise<unknown> {
    return verb === 'create' ? this.api.create(parseRequest(SessionsSubjects.create, message)) : this[verb](message);
  }
}
