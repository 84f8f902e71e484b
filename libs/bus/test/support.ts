import { randomUUID } from 'node:crypto';

/** A subject prefix no other test (or test run against the shared NATS) uses. */
export function uniquePrefix(): string {
  return `test.${randomUUID().replaceAll('-', '').slice(0, 12)}`;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it stops throwing, or rethrows its last failure after `timeoutMs`. */
export async function eventually(check: () => void, timeoutMs = 2_000): Promise<void> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (error) {
      if (Date.now() > giveUpAt) throw error;
      await sleep(10);
    }
  }
}

/** A domain-style error: a stable code, a safe message and details. */
export function namedError(code: string, message: string, details?: unknown): Error {
  return Object.assign(new Error(message), { code, details });
}
