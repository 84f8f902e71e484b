import type { Histogram, LabelValues } from 'prom-client';

/**
 * The outcome label of a failed operation: a named error's code (`DAILY_MESSAGE_LIMIT_REACHED`,
 * `UPSTREAM_TIMEOUT`) when it looks like one, else the error class name. Bounded either way:
 * codes and class names are fixed strings, never messages.
 */
export function outcomeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(code)) return code;
  const name = error instanceof Error ? error.name : undefined;
  return name && /^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(name) ? name : 'error';
}

/**
 * Runs `work` and observes its duration in `histogram` with `labels` plus `outcome`: `ok`, or
 * `outcomeOf(error)` when it throws (the error is rethrown unchanged).
 */
export async function timeAsync<L extends string, T>(
  histogram: Histogram<L | 'outcome'>,
  labels: LabelValues<L>,
  work: () => Promise<T>,
): Promise<T> {
  const started = process.hrtime.bigint();
  const observe = (outcome: string) => {
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    histogram.observe({ ...labels, outcome } as LabelValues<L | 'outcome'>, seconds);
  };
  try {
    const result = await work();
    observe('ok');
    return result;
  } catch (error) {
    observe(outcomeOf(error));
    throw error;
  }
}

/** Seconds between two ISO timestamps, or undefined when either is missing or unreadable. */
export function secondsBetween(from: string | undefined, to: string | undefined): number | undefined {
  if (!from || !to) return undefined;
  const seconds = (Date.parse(to) - Date.parse(from)) / 1000;
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : undefined;
}

/**
 * The route label of an HTTP request: the matched route template (`/v1/sessions/:sessionId`),
 * or `unmatched` for 404s, so a scanner probing random paths cannot blow up the series count.
 */
export function routeLabel(routeTemplate: string | undefined): string {
  return routeTemplate && routeTemplate.length > 0 ? routeTemplate : 'unmatched';
}
