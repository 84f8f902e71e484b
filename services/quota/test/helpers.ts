import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RemoteError } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import type { ReplyOf, RequestInput, SubjectContract } from '@switchboard/contracts';
import { createLogger } from '@switchboard/telemetry';

export const silentLogger = createLogger({ service: 'quota-test', level: 'silent' });

export function tempDataDir(): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'sb-quota-'));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A typed request over the bus, as the gateway makes it. */
export async function call<C extends SubjectContract>(bus: Bus, contract: C, data: RequestInput<C>): Promise<ReplyOf<C>> {
  const reply = await bus.request(contract.subject, data, { timeoutMs: 60_000 });
  return contract.reply.parse(reply.data) as ReplyOf<C>;
}

/** The RemoteError a request fails with (or a failure if it succeeds). */
export async function callError<C extends SubjectContract>(bus: Bus, contract: C, data: RequestInput<C>): Promise<RemoteError> {
  try {
    await call(bus, contract, data);
  } catch (error) {
    if (error instanceof RemoteError) return error;
    throw error;
  }
  throw new Error(`${contract.subject} succeeded, expected an error`);
}

/** A movable clock for rollover tests. */
export class TestClock {
  constructor(private at: Date) {}
  now(): Date {
    return new Date(this.at);
  }
  set(iso: string): void {
    this.at = new Date(iso);
  }
}

export const messageId = (n: number): string => `msg_01JD8Z7A1B2C3D4E5F6G${String(n).padStart(6, '0')}`;
export const sessionId = (n: number): string => `ses_01JD8Z6Q9V4N2C3B5X7M${String(n).padStart(6, '0')}`;

export async function eventually<T>(probe: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > giveUpAt) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
