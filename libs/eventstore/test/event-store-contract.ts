import { describe } from 'vitest';
import { appendAndReadContract } from './contract/append-read.contract.js';
import { chainContract } from './contract/chain.contract.js';
import { concurrencyContract } from './contract/concurrency.contract.js';
import { conditionsContract } from './contract/conditions.contract.js';
import { headContract } from './contract/head.contract.js';
import type { ContractTarget } from './contract/helpers.js';
import { subscriptionContract } from './contract/subscription.contract.js';
import { tailContract } from './contract/tail.contract.js';

export type { ContractTarget } from './contract/helpers.js';

export interface ContractOptions {
  /** When set, the suite is reported as skipped with this reason in its name. */
  skipReason?: string;
}

/**
 * The behaviour every EventStore adapter must show, run against each of them.
 * `target()` is read inside the tests, so it may be set up by a `beforeAll` of the caller.
 */
export function eventStoreContract(name: string, target: () => ContractTarget, options: ContractOptions = {}): void {
  const title = options.skipReason ? `${name} (skipped: ${options.skipReason})` : name;
  describe.skipIf(options.skipReason !== undefined)(title, () => {
    describe('append and read', () => appendAndReadContract(target));
    describe('optimistic concurrency', () => concurrencyContract(target));
    describe('conditions on other streams', () => conditionsContract(target));
    describe('hash chain', () => chainContract(target));
    describe('catch-up subscriptions', () => subscriptionContract(target));
    describe('head and lag', () => headContract(target));
    describe('a reader\'s tail', () => tailContract(target));
  });
}
