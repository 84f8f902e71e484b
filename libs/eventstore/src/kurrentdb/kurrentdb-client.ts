import type * as KurrentClient from '@kurrent/kurrentdb-client';
import { lazyModule } from '../lazy-module.js';

/**
 * `@kurrent/kurrentdb-client`, loaded the first time a KurrentDB store is used: the gRPC client and
 * its protocol definitions cost megabytes of memory that a process on SQLite never needs.
 */
export const kurrent = lazyModule<typeof KurrentClient>('@kurrent/kurrentdb-client');
