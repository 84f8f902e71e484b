import type { EmulatorControlClient } from '@switchboard/chat-emulator';
import type { ClusterControls, SwitchboardUnderTest } from './harness.js';
import { ApiClient } from './http.js';

/**
 * What dies mid-burst in the distributed mode. `messaging+sessions`: messaging is killed while
 * sessions holds sends it asked for; sessions finishes them (the network acknowledges them, the
 * answers go nowhere), then sessions is killed too. Nothing was in doubt at that second kill, so
 * recovery must not make the network carry any of them again.
 */
export type CrashVictim = 'sessions' | 'messaging' | 'nats' | 'messaging+sessions';

export interface BurstPlan {
  victim: CrashVictim;
  /** Texts the clients send (each retried after a refusal until it is acknowledged). */
  messages: number;
  /** Clients sending at once. */
  inFlight: number;
  /** The contacts the texts go to, round robin; fresh ones per burst. */
  contacts: string[];
  /** The crash starts once this many sends were answered 201/202. */
  killAfterAcks: number;
}

/** What the clients and the contacts saw, per crash (the figures of issue 10). */
export interface CrashFigures {
  victim: CrashVictim;
  messages: number;
  /** Sends answered 201 `sent` or 202 `pending`. */
  acknowledged: number;
  /** Requests unanswered at the kill, plus 202s answered before it (still under way inside). */
  inFlightAtKill: number;
  /** The most repeats the network may see: sends that were in doubt when the sender died. */
  repeatBound: number;
  /** Acknowledged sends the contact shows exactly once. */
  shownOnce: number;
  /** Sends (acknowledged or not) the contacts show more than once (by their unique text). */
  shownTwice: number;
  /** Further deliveries of a message id the contacts already had (shown once, counted). */
  repeats: number;
  /** Acknowledged sends no contact received. */
  lost: number;
  /** Acknowledged sends whose final status is `failed`. */
  failed: number;
  /** `messaging+sessions`: sends sessions took to the network after messaging died (> 0, or the case proves nothing). */
  sentWithoutRequester: number;
  restartToReadySeconds: number;
  /** From the kill to the first 201/202 of a request made after it. */
  killToFirstAckSeconds: number;
}

interface Answer {
  text: string;
  messageId: string | undefined;
  status: number;
  startedAt: number;
  answeredAt: number;
}

interface CrashTimes {
  killedAt: number;
  restartedAt: number;
  readyAt: number;
  sentWithoutRequester: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const isAck = (status: number) => status === 201 || status === 202;

/** Runs one burst over HTTP against `sut` (distributed), crashes `plan.victim` mid-way, and counts. */
export async function crashMidBurst(sut: SwitchboardUnderTest, sessionId: string, plan: BurstPlan): Promise<CrashFigures> {
  const cluster = sut.cluster;
  if (!cluster) throw new Error('crash bursts need the distributed mode');
  const api = new ApiClient(sut.url, sut.apiKey);
  const answers: Answer[] = [];
  let outstanding = 0;
  let crash: Promise<CrashTimes> | undefined;
  let inFlightAtKill = 0;
  const startCrash = () => {
    inFlightAtKill = outstanding + answers.filter((a) => a.status === 202).length;
    return crashVictim(plan.victim, cluster, sut.emulator);
  };
  let next = 0;
  const worker = async () => {
    while (next < plan.messages) {
      const i = next++;
      for (let attempt = 0; ; attempt++) {
        const text = `${plan.victim} burst ${i} try ${attempt} ${plan.contacts[0]}`;
        outstanding++;
        const startedAt = Date.now();
        const sent = await api.post('/v1/messages/text', { sessionId, to: plan.contacts[i % plan.contacts.length], text }).catch(() => undefined);
        outstanding--;
        const status = sent?.status ?? 0;
        answers.push({ text, messageId: sent?.body?.data?.messageId, status, startedAt, answeredAt: Date.now() });
        if (isAck(status) && answers.filter((a) => isAck(a.status)).length >= plan.killAfterAcks) crash ??= startCrash();
        if (isAck(status) || (status >= 400 && status < 500 && status !== 429)) break;
        // Refused while something is down: wait as told (Retry-After, at most 2 s), then send again.
        await sleep(Math.min(Number(sent?.headers.get('retry-after') ?? 1), 2) * 1000);
      }
    }
  };
  await Promise.all(Array.from({ length: plan.inFlight }, worker));
  const times = await (crash ?? Promise.reject(new Error(`the burst ended before ${plan.killAfterAcks} acknowledgements`)));
  const acknowledged = answers.filter((a) => isAck(a.status));
  const failed = await settledFailures(api, acknowledged);
  await untilQuiet(sut.emulator);
  return count(plan, await receivedTexts(sut.emulator, plan.contacts), acknowledged, failed, {
    inFlightAtKill,
    times,
    firstAck: Math.min(...answers.filter((a) => isAck(a.status) && a.startedAt >= times.killedAt).map((a) => a.answeredAt)),
  });
}

/** Crashes the victim and brings it back; the times of each step. */
async function crashVictim(victim: CrashVictim, cluster: ClusterControls, emulator: EmulatorControlClient): Promise<CrashTimes> {
  let sentWithoutRequester = 0;
  const killedAt = Date.now();
  if (victim === 'nats') await cluster.stopNats();
  else if (victim === 'messaging+sessions') sentWithoutRequester = await killMessagingThenSessions(cluster, emulator);
  else await cluster.kill(victim);
  const restartedAt = Date.now();
  if (victim === 'nats') await cluster.startNats();
  else if (victim === 'messaging+sessions') ['messaging', 'sessions'].forEach((name) => cluster.start(name as 'messaging' | 'sessions'));
  else cluster.start(victim);
  await cluster.untilReady();
  return { killedAt, restartedAt, readyAt: Date.now(), sentWithoutRequester };
}

/**
 * Sessions is frozen for a second so that sends pile up there, messaging dies, sessions thaws and
 * takes them to the network with nobody left to hear the answers; once the network is quiet,
 * sessions dies as well. Returns how many sends the network got meanwhile.
 */
async function killMessagingThenSessions(cluster: ClusterControls, emulator: EmulatorControlClient): Promise<number> {
  cluster.signal('sessions', 'SIGSTOP');
  await sleep(1_000);
  await cluster.kill('messaging');
  const before = (await emulator.health()).messages.received;
  cluster.signal('sessions', 'SIGCONT');
  const after = await untilQuiet(emulator);
  await cluster.kill('sessions');
  return after - before;
}

/** Waits until the network has taken no message for 1.5 s; the number it took so far. */
async function untilQuiet(emulator: EmulatorControlClient): Promise<number> {
  let last = -1;
  let stableSince = Date.now();
  for (;;) {
    const received = (await emulator.health()).messages.received;
    if (received !== last) [last, stableSince] = [received, Date.now()];
    else if (Date.now() - stableSince >= 1_500) return received;
    await sleep(250);
  }
}

/** Waits until no acknowledged send is `pending` (recovery and retries done); how many failed. */
async function settledFailures(api: ApiClient, acknowledged: Answer[], timeoutMs = 120_000): Promise<number> {
  const giveUpAt = Date.now() + timeoutMs;
  let open = acknowledged;
  let failed = 0;
  while (open.length > 0) {
    const statuses = await Promise.all(open.map(async (a) => (await api.get(`/v1/messages/${a.messageId}`)).body?.data?.status as string | undefined));
    failed += statuses.filter((s) => s === 'failed').length;
    open = open.filter((_, i) => statuses[i] === 'pending' || statuses[i] === undefined);
    if (open.length === 0) break;
    if (Date.now() > giveUpAt) throw new Error(`${open.length} acknowledged sends still pending after ${timeoutMs} ms`);
    await sleep(500);
  }
  return failed;
}

/** Per text: how many entries the contacts show and how many repeats they counted. */
async function receivedTexts(emulator: EmulatorControlClient, contacts: string[]): Promise<Map<string, { shown: number; repeats: number }>> {
  const byText = new Map<string, { shown: number; repeats: number }>();
  for (const contact of contacts) {
    for (const message of await emulator.messages(contact)) {
      const seen = byText.get(message.text ?? '') ?? { shown: 0, repeats: 0 };
      byText.set(message.text ?? '', { shown: seen.shown + 1, repeats: seen.repeats + message.repeats });
    }
  }
  return byText;
}

function count(
  plan: BurstPlan,
  byText: Map<string, { shown: number; repeats: number }>,
  acknowledged: Answer[],
  failed: number,
  at: { inFlightAtKill: number; times: CrashTimes; firstAck: number },
): CrashFigures {
  const shown = (a: Answer) => byText.get(a.text)?.shown ?? 0;
  const seconds = (ms: number) => Math.round(ms / 100) / 10;
  return {
    victim: plan.victim,
    messages: plan.messages,
    acknowledged: acknowledged.length,
    inFlightAtKill: at.inFlightAtKill,
    // At the second kill of `messaging+sessions` sessions had finished every send: nothing in doubt.
    repeatBound: plan.victim === 'messaging+sessions' ? 0 : at.inFlightAtKill,
    shownOnce: acknowledged.filter((a) => shown(a) === 1).length,
    shownTwice: [...byText.values()].filter((t) => t.shown > 1).length,
    repeats: [...byText.values()].reduce((sum, t) => sum + t.repeats, 0),
    lost: acknowledged.filter((a) => shown(a) === 0).length,
    failed,
    sentWithoutRequester: at.times.sentWithoutRequester,
    restartToReadySeconds: seconds(at.times.readyAt - at.times.restartedAt),
    killToFirstAckSeconds: seconds(at.firstAck - at.times.killedAt),
  };
}
