import type { ReadinessCheck } from '@switchboard/contracts';
import type { NetworkFailure } from '../chat/index.js';

/**
 * Whether this process can reach the chat network, as its own connections last found: a pairing
 * code or a login says yes, a connection that could not be made says why not. Nothing is sent
 * only to check (no probe traffic): before the first attempt it is unknown.
 */
export class NetworkReachability {
  #last: { reached: true; at: Date } | { reached: false; failure: NetworkFailure; at: Date } | undefined;

  constructor(private readonly clock: () => Date = () => new Date()) {}

  reached(): void {
    this.#last = { reached: true, at: this.clock() };
  }

  failed(failure: NetworkFailure): void {
    this.#last = { reached: false, failure, at: this.clock() };
  }

  /** `/readyz`'s `chatNetwork`: advisory, so an unreachable network never takes the service out of rotation. */
  check(): ReadinessCheck {
    const last = this.#last;
    if (!last) return { ok: true, advisory: true, detail: 'not tried yet: no session has connected since the start' };
    const at = last.at.toISOString();
    if (last.reached) return { ok: true, advisory: true, detail: `reached at ${at}` };
    return { ok: false, advisory: true, detail: `unreachable at ${at}: ${last.failure.cause}: ${last.failure.detail}` };
  }
}
