import { afterAll, beforeAll } from 'vitest';
import { KurrentDbEventStore } from '../src/index.js';
import { eventStoreContract } from './event-store-contract.js';
import { findKurrentDbTarget, startKurrentDbContainer, type StartedKurrentDb } from './kurrentdb-target.js';

const target = await findKurrentDbTarget();
let url = target.kind === 'url' ? target.url : '';
let container: StartedKurrentDb | undefined;

if (target.kind === 'container') {
  beforeAll(async () => {
    container = await startKurrentDbContainer();
    url = container.url;
  }, 180_000);
  afterAll(async () => container?.stop(), 60_000);
}

eventStoreContract(
  'KurrentDB contract',
  () => ({ connect: async () => new KurrentDbEventStore(url) }),
  target.kind === 'unavailable' ? { skipReason: target.reason } : {},
);
