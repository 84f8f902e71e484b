import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A CommonJS driver loaded the first time it is needed (synchronously): a process on the embedded
 * SQLite store never pays for the PostgreSQL or KurrentDB client.
 */
export function lazyModule<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}
