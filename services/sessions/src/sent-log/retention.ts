import type { SentLog } from './sent-log.js';

export interface RetentionOptions {
  retentionMs: number;
  /** How often old records are dropped (default hourly; also once at start). */
  everyMs?: number;
  now?: () => number;
  onError: (error: unknown) => void;
}

/** Keeps the sent log to its retention window: drops older records now and then; returns a stop. */
export function keepWithinRetention(log: SentLog, options: RetentionOptions): () => void {
  const now = options.now ?? Date.now;
  const forget = () => void log.forgetBefore(new Date(now() - options.retentionMs)).catch(options.onError);
  forget();
  const timer = setInterval(forget, options.everyMs ?? 3_600_000);
  timer.unref();
  return () => clearInterval(timer);
}
