import type { Plan } from '@switchboard/contracts';

/**
 * Safe pacing as pure decisions: when a session's next message may go out, so that a burst
 * through one linked device does not look like a bot (evenly spaced, instant fan-out to many
 * numbers, first messages to many strangers at once are what gets accounts banned).
 */

/** A plan's pacing; a value of 0 turns that rule off. */
export interface PacingSettings {
  /** Least time (ms) between a message and the next one to a different recipient. */
  gapMs: number;
  /** Least time (ms) between two first messages to new contacts (a slower rate for strangers). */
  newContactGapMs: number;
}

/**
 * Each wait is stretched at random by up to this share of it (so 1000 ms waits 1000–1500 ms):
 * sends at exact intervals are a script's signature. The configured value stays the minimum.
 */
export const PACING_JITTER = 0.5;

/** What one session's pacing remembers (epoch milliseconds). */
export interface PacingState {
  /** Recipient of the last message let out. */
  lastTo?: string;
  /** When the last message let out reached the network (or, while it is on its way, when it left). */
  lastAt?: number;
  /** When the last first message to a new contact reached the network (or, while on its way, left). */
  lastNewContactAt?: number;
}

/** The message waiting for its turn. */
export interface NextMessage {
  to: string;
  /** The session has not messaged this number before (as far as its records go). */
  isNewContact: boolean;
}

export const isPacingOff = (settings: PacingSettings): boolean => settings.gapMs <= 0 && settings.newContactGapMs <= 0;

/**
 * The earliest time (epoch ms) the next message may go out; at or before now means at once.
 * `random()` gives [0, 1), one draw per rule that applies. Messages to the recipient of the one
 * before are not spaced (a conversation looks like one); a first message to a new contact also
 * waits out the new-contact gap after the previous first message.
 */
export function earliestSendAt(state: PacingState, next: NextMessage, settings: PacingSettings, random: () => number): number {
  let at = Number.NEGATIVE_INFINITY;
  if (settings.gapMs > 0 && state.lastAt !== undefined && state.lastTo !== next.to) {
    at = Math.max(at, state.lastAt + stretched(settings.gapMs, random));
  }
  if (settings.newContactGapMs > 0 && next.isNewContact && state.lastNewContactAt !== undefined) {
    at = Math.max(at, state.lastNewContactAt + stretched(settings.newContactGapMs, random));
  }
  return at;
}

/** Whether the next message must wait for the previous one to reach the network before its gap is measured. */
export function waitsForPrevious(state: PacingState, next: NextMessage, settings: PacingSettings): boolean {
  if (state.lastAt === undefined) return false;
  return (settings.gapMs > 0 && state.lastTo !== next.to) || (settings.newContactGapMs > 0 && next.isNewContact);
}

/** The state once `next` was let out at `now`. */
export function released(state: PacingState, next: NextMessage, now: number): PacingState {
  return { lastTo: next.to, lastAt: now, lastNewContactAt: next.isNewContact ? now : state.lastNewContactAt };
}

/**
 * The state once a message let out reached the network (or failed) at `now`: the gap counts from
 * there, and so does the new-contact gap when `message` was a first message to a new contact, so
 * the contacts' phones see both whatever the way there took. Never moves a clock back.
 */
export function settled(state: PacingState, message: NextMessage, now: number): PacingState {
  const lastAt = Math.max(state.lastAt ?? now, now);
  if (!message.isNewContact) return { ...state, lastAt };
  return { ...state, lastAt, lastNewContactAt: Math.max(state.lastNewContactAt ?? now, now) };
}

function stretched(ms: number, random: () => number): number {
  const draw = Math.min(Math.max(random(), 0), 1);
  return ms + Math.floor(ms * PACING_JITTER * draw);
}

/** How long "typing…" shows before a message of `chars` characters: a person's pace, 1–3 s. */
export function typingMs(chars: number): number {
  return Math.min(3_000, 1_000 + Math.max(0, chars) * 25);
}

const PLANS: readonly Plan[] = ['free', 'basic', 'premium', 'enterprise'];

/**
 * A per-plan setting as configured: comma-separated items, each `<ms>` (every plan) or
 * `<plan>=<ms>` (that plan); later items win. `1000` paces every plan at 1000 ms;
 * `1000,enterprise=0` every plan but enterprise. A plan not named keeps 0.
 * @throws RangeError on anything else (the config schema checks the form first)
 */
export function perPlan(raw: string): Record<Plan, number> {
  const values: Record<Plan, number> = { free: 0, basic: 0, premium: 0, enterprise: 0 };
  for (const item of raw.split(',').map((part) => part.trim())) {
    const match = /^(?:(free|basic|premium|enterprise)=)?(\d{1,9})$/.exec(item);
    if (!match) throw new RangeError(`expected <ms> or <plan>=<ms> items, got ${JSON.stringify(item)}`);
    const ms = Number(match[2]);
    for (const plan of match[1] ? [match[1] as Plan] : PLANS) values[plan] = ms;
  }
  return values;
}

/** Each plan's pacing from the two configured settings. */
export function pacingByPlan(gapMs: string, newContactGapMs: string): Record<Plan, PacingSettings> {
  const gaps = perPlan(gapMs);
  const newContactGaps = perPlan(newContactGapMs);
  return Object.fromEntries(PLANS.map((plan) => [plan, { gapMs: gaps[plan], newContactGapMs: newContactGaps[plan] }])) as Record<Plan, PacingSettings>;
}
