/** Clock port: the only source of "now" for the quota service (tests move it across midnight). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
