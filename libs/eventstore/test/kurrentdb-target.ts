import { GenericContainer, Wait, getContainerRuntimeClient, type StartedTestContainer } from 'testcontainers';

export const kurrentDbImage = 'docker.kurrent.io/kurrent-latest/kurrentdb';

/** Where the KurrentDB contract runs: a given server, a container to start, or nowhere (and why). */
export type KurrentDbTarget =
  | { kind: 'url'; url: string }
  | { kind: 'container' }
  | { kind: 'unavailable'; reason: string };

/**
 * `SWITCHBOARD_EVENTSTORE_URL` wins; otherwise a container runtime is probed (testcontainers
 * rejects in about a millisecond when there is none), so the suite is skipped visibly.
 */
export async function findKurrentDbTarget(): Promise<KurrentDbTarget> {
  const url = process.env['SWITCHBOARD_EVENTSTORE_URL']?.trim();
  if (url) return { kind: 'url', url };
  try {
    await getContainerRuntimeClient();
    return { kind: 'container' };
  } catch {
    return { kind: 'unavailable', reason: 'no SWITCHBOARD_EVENTSTORE_URL and no container runtime' };
  }
}

export interface StartedKurrentDb {
  url: string;
  stop(): Promise<void>;
}

/** An insecure, in-memory single node: enough for the contract, gone after the run. */
export async function startKurrentDbContainer(): Promise<StartedKurrentDb> {
  const container: StartedTestContainer = await new GenericContainer(kurrentDbImage)
    .withEnvironment({ KURRENTDB_INSECURE: 'true', KURRENTDB_MEM_DB: 'true', KURRENTDB_RUN_PROJECTIONS: 'None' })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
    .withStartupTimeout(120_000)
    .start();
  return {
    url: `kurrentdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
    stop: async () => {
      await container.stop();
    },
  };
}
