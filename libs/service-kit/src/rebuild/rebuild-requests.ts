import { hostname } from 'node:os';
import type { Bus } from '@switchboard/bus';
import { ProjectionRebuildRequest, projectionRebuildReportSubject, projectionRebuildSubject } from '@switchboard/contracts';
import type { ProjectionRebuildReport } from '@switchboard/contracts';
import type { EventStore } from '@switchboard/eventstore';
import type { Logger } from '@switchboard/telemetry';
import type { StoreConfig } from '../service-store.js';
import { rebuildProjection } from './projection-rebuild.js';
import type { RebuildProgress, ServiceReadModels } from './projection-rebuild.js';

export interface ProjectionRebuildsOptions {
  bus: Bus;
  readModels: ServiceReadModels;
  store: EventStore;
  config: StoreConfig;
  logger: Logger;
  /** Least time between two progress reports (default 500 ms). */
  progressEveryMs?: number;
  /** How reports name this replica (default `<host name>:<pid>`: the pod's name in Kubernetes). */
  replica?: string;
}

/** Stops answering rebuild requests; a rebuild under way is abandoned before its swap. */
export interface ProjectionRebuilds {
  close(): Promise<void>;
}

/** This process among the service's replicas, as an operator finds it (`kubectl get pods` shows the host name). */
const thisProcess = `${hostname()}:${process.pid}`;

/**
 * Rebuilds this replica's read models when `switchboard projections rebuild` asks over the bus
 * (distributed mode: each replica keeps its read models on a disk of its own, which only it can
 * swap). Subscribed without a queue group, so every replica rebuilds; each reports where it is on
 * the run's report subject while it goes on serving reads from its live read models.
 */
export async function serveProjectionRebuilds(options: ProjectionRebuildsOptions): Promise<ProjectionRebuilds> {
  const stopping = new AbortController();
  const running = new Set<Promise<void>>();
  const subscription = await options.bus.subscribe(projectionRebuildSubject(options.readModels.service), (message) => {
    const request = ProjectionRebuildRequest.safeParse(message.data);
    if (!request.success) {
      options.logger.warn({ issues: request.error.issues }, 'projection rebuild request ignored: not a valid request');
      return;
    }
    const run = rebuildAsked(options, request.data, stopping.signal).finally(() => running.delete(run));
    running.add(run);
  });
  return {
    close: async () => {
      await subscription.unsubscribe();
      stopping.abort(new Error('the service is stopping'));
      await Promise.allSettled(running);
    },
  };
}

/** Rebuilds the asked projections one after the other, reporting each. */
async function rebuildAsked(options: ProjectionRebuildsOptions, request: ProjectionRebuildRequest, signal: AbortSignal): Promise<void> {
  const { bus, logger, readModels } = options;
  const subject = projectionRebuildReportSubject(request.runId);
  const base = { runId: request.runId, service: readModels.service, replica: options.replica ?? thisProcess };
  const report = (message: ProjectionRebuildReport) =>
    bus.publish(subject, message).catch((error: unknown) => logger.warn({ err: error }, 'projection rebuild report not published'));
  const asked = readModels.projections.filter((p) => request.projections === undefined || request.projections.includes(p.name));
  await report({ ...base, phase: 'started', projections: asked.map((p) => p.name) });
  for (const projection of asked) {
    try {
      const result = await rebuildProjection({
        store: options.store, file: readModels.file(options.config), projection, signal, onProgress: throttled(options, base), servingRequests: true,
      });
      logger.info({ ...result }, 'read model rebuilt and swapped in');
      await report({ ...base, phase: 'rebuilt', result });
    } catch (error) {
      logger.error({ err: error, projection: projection.name }, 'read model rebuild failed; the live read model is unchanged');
      await report({ ...base, phase: 'failed', projection: projection.name, message: error instanceof Error ? error.message : String(error) });
    }
  }
  await report({ ...base, phase: 'finished' });
}

/** A progress callback that publishes at most one report per `progressEveryMs`. */
function throttled(options: ProjectionRebuildsOptions, base: { runId: string; service: ServiceReadModels['service']; replica: string }): (progress: RebuildProgress) => void {
  let sentAt = 0;
  return (progress) => {
    const now = performance.now();
    if (now - sentAt < (options.progressEveryMs ?? 500)) return;
    sentAt = now;
    options.bus.publish(projectionRebuildReportSubject(base.runId), { ...base, phase: 'progress', ...progress } satisfies ProjectionRebuildReport)
      .catch(() => undefined);
  };
}
