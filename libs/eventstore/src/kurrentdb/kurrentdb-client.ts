import { createRequire } from 'node:module';
import type * as KurrentClient from '@kurrent/kurrentdb-client';

type KurrentClientModule = typeof KurrentClient;

const require = createRequire(import.meta.url);
let loaded: KurrentClientModule | undefined;

/**
 * `@kurrent/kurrentdb-client`, loaded the first time a KurrentDB store is used (it is CommonJS, so
 * synchronously): the gRPC client and its protocol definitions cost megabytes of memory that a
 * process on the embedded SQLite store never needs.
 */
export function kurrent(): KurrentClientModule {
  loaded ??= require('@kurrent/kurrentdb-client') as KurrentClientModule;
  return loaded;
}
