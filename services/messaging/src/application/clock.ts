/** Clock port: the only source of "now" in the messaging service (tests move it). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
