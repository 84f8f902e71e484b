import type { Bus, BusSubscription } from '@switchboard/bus';
import { ProjectionRebuildReport, projectionRebuildReportSubject, projectionRebuildSubject } from '@switchboard/contracts';
import type { ProjectionName, ProjectionRebuildRequest, RebuildableService } from '@switchboard/contracts';
import { ulid } from '@switchboard/service-kit';
import type { RebuildTarget } from '../args.js';
import { ProgressBar } from '../progress.js';
import { noOutcome } from './rebuild-outcome.js';
import type { RebuildOutcome } from './rebuild-outcome.js';

export interface BusRebuildTiming {
  /** How long each service's replicas have to say they started (default 2 s). */
  answerWindowMs: number;
  /** A replica silent for this long is taken for gone, its rebuilds failed (default 60 s). */
  silenceMs: number;
}

const DEFAULT_TIMING: BusRebuildTiming = { answerWindowMs: 2_000, silenceMs: 60_000 };

/** A replica rebuilding: what it has left to report, and when it last said anything. */
interface Replica {
  service: RebuildableService;
  name: string;
  left: Set<ProjectionName>;
  heardAt: number;
  finished: boolean;
}

/**
 * Distributed mode: asks every replica of each service over NATS to rebuild its own read models
 * (each keeps them on its own disk, in a pod's emptyDir) and follows the reports they publish for
 * this run until each replica has finished, drawing the progress of the latest report.
 */
export async function rebuildOverBus(bus: Bus, targets: readonly RebuildTarget[], timing: BusRebuildTiming = DEFAULT_TIMING): Promise<RebuildOutcome> {
  const run = new BusRebuild(targets, timing);
  const runId = ulid();
  const subscription = await bus.subscribe(projectionRebuildReportSubject(runId), (message) => run.heard(message.data));
  try {
    for (const { service, projections } of targets) {
      await bus.publish(projectionRebuildSubject(service), { runId, projections } satisfies ProjectionRebuildRequest);
    }
    return await run.finished();
  } finally {
    await unsubscribe(subscription);
  }
}

class BusRebuild {
  readonly outcome = noOutcome();
  private readonly replicas = new Map<string, Replica>();
  private readonly startedAt = Date.now();
  private bar: { key: string; bar: ProgressBar } | undefined;
  private done: (() => void) | undefined;

  constructor(private readonly targets: readonly RebuildTarget[], private readonly timing: BusRebuildTiming) {}

  /** Resolves once the answer window is over and every replica that answered has finished or gone silent. */
  finished(): Promise<RebuildOutcome> {
    return new Promise((resolve) => {
      const timer = setInterval(() => this.check(), Math.min(250, this.timing.answerWindowMs));
      this.done = () => {
        clearInterval(timer);
        this.bar?.bar.end();
        resolve(this.outcome);
      };
    });
  }

  heard(data: unknown): void {
    const parsed = ProjectionRebuildReport.safeParse(data);
    if (!parsed.success) return;
    const report = parsed.data;
    const replica = this.replicaOf(report);
    replica.heardAt = Date.now();
    switch (report.phase) {
      case 'started':
        replica.left = new Set(report.projections);
        return;
      case 'progress':
        this.draw(`${report.service} ${report.projection} ${report.replica}`, report.events, report.total);
        return;
      case 'rebuilt':
        replica.left.delete(report.result.projection);
        this.outcome.rebuilt.push({ service: report.service, replica: report.replica, result: report.result });
        return;
      case 'failed':
        replica.left.delete(report.projection);
        this.outcome.failed.push({ service: report.service, replica: report.replica, projection: report.projection, message: report.message });
        return;
      case 'finished':
        replica.finished = true;
        return;
    }
  }

  private replicaOf(report: ProjectionRebuildReport): Replica {
    const key = `${report.service} ${report.replica}`;
    let replica = this.replicas.get(key);
    if (replica === undefined) {
      replica = { service: report.service, name: report.replica, left: new Set(), heardAt: Date.now(), finished: false };
      this.replicas.set(key, replica);
    }
    return replica;
  }

  private draw(key: string, events: number, total: number): void {
    if (this.bar?.key !== key) {
      this.bar?.bar.end();
      this.bar = { key, bar: new ProgressBar(key, 'events') };
    }
    this.bar.bar.update(events, total === 0 ? 1 : events / total);
  }

  private check(): void {
    const now = Date.now();
    for (const replica of this.replicas.values()) {
      if (replica.finished || now - replica.heardAt < this.timing.silenceMs) continue;
      replica.finished = true;
      for (const projection of replica.left) {
        this.outcome.failed.push({ service: replica.service, replica: replica.name, projection, message: `no report for ${this.timing.silenceMs / 1000} s: the replica stopped or lost its connection` });
      }
    }
    if (now - this.startedAt < this.timing.answerWindowMs) return;
    for (const { service, projections } of this.targets) {
      if ([...this.replicas.values()].some((r) => r.service === service)) continue;
      for (const projection of projections) {
        this.outcome.failed.push({ service, replica: '-', projection, message: `no ${service} replica answered within ${this.timing.answerWindowMs / 1000} s; is the service running?` });
      }
      // Reported once: from now on the service counts as answered (by nobody).
      this.replicas.set(`${service} -`, { service, name: '-', left: new Set(), heardAt: now, finished: true });
    }
    if ([...this.replicas.values()].every((r) => r.finished)) this.done?.();
  }
}

async function unsubscribe(subscription: BusSubscription): Promise<void> {
  await subscription.unsubscribe().catch(() => undefined);
}
