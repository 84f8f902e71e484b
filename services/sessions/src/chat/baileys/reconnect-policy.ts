/** How long to wait before reconnect attempt `attempt` (1-based): doubling, capped, jittered. */
export interface ReconnectPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  /** Gives up (and reports `connection_lost` with `willReconnect: false`) after this many attempts. */
  maxAttempts: number;
}

export const DEFAULT_RECONNECT_POLICY: ReconnectPolicy = {
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  maxAttempts: Number.POSITIVE_INFINITY,
};

/** Full jitter keeps a fleet of sessions that dropped together from reconnecting in lockstep. */
export function reconnectDelayMs(policy: ReconnectPolicy, attempt: number, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
