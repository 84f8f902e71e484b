import type { ProjectionName, ProjectionRebuildResult, RebuildableService } from '@switchboard/contracts';
import { count, table } from '../format.js';
import type { CliOutput } from '../run.js';

/** Where a read model was rebuilt: `local` (the files under the data dir) or a replica's name. */
export type RebuildPlace = 'local' | string;

/** What `projections rebuild` did, read model by read model. */
export interface RebuildOutcome {
  rebuilt: { service: RebuildableService; replica: RebuildPlace; result: ProjectionRebuildResult }[];
  failed: { service: RebuildableService; replica: RebuildPlace; projection: ProjectionName; message: string }[];
  /** Services with nothing to rebuild from (no event store yet), with the reason. */
  skipped: { service: RebuildableService; reason: string }[];
}

export const noOutcome = (): RebuildOutcome => ({ rebuilt: [], failed: [], skipped: [] });

/** A table of what was rebuilt (and what failed), the total rate, and exit 1 on any failure. */
export function rebuildOutput(outcome: RebuildOutcome): CliOutput {
  const rows = [
    ...outcome.rebuilt.map(({ service, replica, result: r }) => [service, r.projection, replica, count(r.events), count(Object.values(r.rows).reduce((a, b) => a + b, 0)),
      r.seconds.toFixed(2), count(r.eventsPerSecond), r.swapMs.toFixed(1)]),
    ...outcome.failed.map(({ service, replica, projection, message }) => [service, projection, replica, `failed: ${message}`]),
    ...outcome.skipped.map(({ service, reason }) => [service, '-', '-', reason]),
  ];
  const lines = [table(['SERVICE', 'PROJECTION', 'WHERE', 'EVENTS', 'ROWS', 'SECONDS', 'EVENTS/S', 'SWAP MS'], rows), '', summary(outcome)];
  const json = {
    ok: outcome.failed.length === 0,
    rebuilt: outcome.rebuilt.map(({ service, replica, result }) => ({ service, where: replica, ...result })),
    failed: outcome.failed.map(({ service, replica, projection, message }) => ({ service, where: replica, projection, message })),
    skipped: outcome.skipped,
  };
  return { text: lines.join('\n'), json, exitCode: outcome.failed.length === 0 ? 0 : 1 };
}

function summary({ rebuilt, failed }: RebuildOutcome): string {
  const events = rebuilt.reduce((sum, r) => sum + r.result.events, 0);
  const seconds = rebuilt.reduce((sum, r) => sum + r.result.seconds, 0);
  const done = rebuilt.length === 0
    ? 'Nothing rebuilt.'
    : `Rebuilt ${rebuilt.length} read model${rebuilt.length === 1 ? '' : 's'} from ${count(events)} events in ${seconds.toFixed(1)} s: ${count(seconds > 0 ? events / seconds : 0)} events/s. ` +
      'Each was built beside the live one, which answered reads until the new one was swapped in.';
  return failed.length === 0 ? done : `${done}\n${failed.length} failed: the live read model of each stays as it was.`;
}
