import { afterEach, describe, expect, it } from 'vitest';
import { InProcessBus, toServiceCallError } from '@switchboard/bus';
import type { BusMessage } from '@switchboard/bus';
import { ApiError, reachedNetwork } from '@switchboard/contracts';
import { createLogger } from '@switchboard/telemetry';
import type { SessionOwnership } from './ownership.js';
import { SessionRouter } from './session-router.js';
import type { RoutedVerb } from './session-router.js';

const SESSION = 'ses_moving';
const SEND_WAIT_MS = 150;

/** One replica's router on the shared bus, believing `ownerOf` of every session. */
function replica(bus: InProcessBus, replicaId: string, ownerOf: () => string) {
  const handled: string[] = [];
  const ownership = { replicaId, ownerOf } as unknown as SessionOwnership;
  const router = new SessionRouter({
    bus,
    ownership,
    online: () => true,
    holds: () => true,
    connectedOnRecord: () => true,
    hurry: () => undefined,
    sendWaitMs: SEND_WAIT_MS,
    logger: createLogger({ service: 'sessions', level: 'silent' }),
  });
  const here = (verb: string) => async () => {
    handled.push(verb);
    return { handledBy: replicaId };
  };
  const route = (verb: Exclude<RoutedVerb, 'create'>, message: BusMessage) => router.session(verb, SESSION, message, here(verb));
  return { router, handled, route, listen: () => router.listen((verb, message) => route(verb as Exclude<RoutedVerb, 'create'>, message)) };
}

type Replica = ReturnType<typeof replica>;
interface View {
  replicaId: string;
  owner: string;
}

const request = (subject: string): BusMessage => ({ subject, data: { sessionId: SESSION }, headers: {}, local: true });

/** The failure as messaging's service client sees it (through the bus's error envelope). */
async function failureOf(routed: Promise<unknown>): Promise<ApiError> {
  const error = await routed.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  return error as ApiError;
}

describe('session router, while a session moves between replicas', () => {
  const buses: InProcessBus[] = [];
  afterEach(async () => {
    await Promise.all(buses.splice(0).map((bus) => bus.close()));
  });

  /** Replicas on one bus, each believing `views[i]` of who owns the session; listening on their own subjects. */
  async function replicas<V extends readonly View[]>(...views: V) {
    const bus = new InProcessBus();
    buses.push(bus);
    const started = views.map(({ replicaId, owner }) => replica(bus, replicaId, () => owner));
    await Promise.all(started.map((r) => r.listen()));
    return { bus, started: started as { [K in keyof V]: Replica } };
  }

  it('two replicas that each think the other holds the session: a send is answered "not sent" past the deadline (messaging retries it), acted on nowhere', async () => {
    const { bus, started: [a, b] } = await replicas({ replicaId: 'rep_a', owner: 'rep_b' }, { replicaId: 'rep_b', owner: 'rep_a' });

    const send = await failureOf(a.route('send', request('sb.v1.sessions.send')));
    expect(send.code).toBe('CHAT_NETWORK_ERROR');
    expect(reachedNetwork(send)).toBe(false);
    // Over the bus too (it was forwarded there and back): the caller's client keeps "not sent".
    const remote = toServiceCallError(await bus.request('sb.v1.sessions.replica.rep_b.send', { sessionId: SESSION }, { timeoutMs: 5_000 }).then(() => undefined, (e: unknown) => e));
    expect(remote?.code).toBe('CHAT_NETWORK_ERROR');
    expect(reachedNetwork(remote!)).toBe(false);

    // Other requests keep the plain 503 a client retries.
    expect((await failureOf(a.route('qr', request('sb.v1.sessions.qr')))).code).toBe('SERVICE_UNAVAILABLE');
    expect([...a.handled, ...b.handled]).toEqual([]);
  });

  it('the owner it names has left the bus: a send waits for a live owner, then is answered "not sent"', async () => {
    const { started: [a] } = await replicas({ replicaId: 'rep_a', owner: 'rep_gone' });

    const send = await failureOf(a.route('send', request('sb.v1.sessions.send')));
    expect(send.code).toBe('CHAT_NETWORK_ERROR');
    expect(reachedNetwork(send)).toBe(false);
    expect(a.handled).toEqual([]);
  });

  it('once the views agree, the request is handled by the owner alone', async () => {
    const { started: [a, b] } = await replicas({ replicaId: 'rep_a', owner: 'rep_b' }, { replicaId: 'rep_b', owner: 'self' });

    await expect(a.route('send', request('sb.v1.sessions.send'))).resolves.toEqual({ handledBy: 'rep_b' });
    expect(a.handled).toEqual([]);
    expect(b.handled).toEqual(['send']);
  });
});
