import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RawEvent } from '@switchboard/contracts';
import type { AggregateFold } from '../src/command-handler.js';

/** A temp folder removed after the test file. */
export function tempDir(): { path: string; remove(): void } {
  const path = mkdtempSync(join(tmpdir(), 'service-kit-'));
  return { path, remove: () => rmSync(path, { recursive: true, force: true }) };
}

/** A tiny aggregate for the tests: a ticket counter with a fixed capacity. */
export type TicketEvent = { type: 'TicketGranted'; version: 1; data: { holder: string } };
export interface Tickets {
  holders: string[];
}

export const ticketFold: AggregateFold<Tickets, TicketEvent> = {
  initial: { holders: [] },
  evolve: (state, event) => ({ holders: [...state.holders, event.data.holder] }),
  parse: (raw: RawEvent) => {
    if (raw.type !== 'TicketGranted' || raw.version !== 1) throw new Error(`unexpected ${raw.type}@${raw.version}`);
    return raw as TicketEvent;
  },
};

export class SoldOut extends Error {}

/** Grants one ticket unless `capacity` are gone; idempotent per holder. */
export function grantTicket(holder: string, capacity: number) {
  return (state: Tickets): TicketEvent[] => {
    if (state.holders.includes(holder)) return [];
    if (state.holders.length >= capacity) throw new SoldOut(holder);
    return [{ type: 'TicketGranted', version: 1, data: { holder } }];
  };
}

export const metadata = {
  accountId: 'acc_01JD0000000000000000000000',
  correlationId: 'corr-1',
  causationId: 'corr-1',
  occurredAt: '2026-11-21T10:00:00.000Z',
};
