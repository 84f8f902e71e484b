import { rebuildProjection } from '@switchboard/service-kit';
import type { ServiceReadModels, SwitchboardConfig } from '@switchboard/service-kit';
import { EVENTS_READ_MODELS } from '@switchboard/events';
import { MESSAGING_READ_MODELS } from '@switchboard/messaging';
import { SESSIONS_READ_MODELS } from '@switchboard/sessions';
import type { RebuildTarget } from '../args.js';
import { storeOf, withAuditedStores } from '../audit/audited-stores.js';
import { ProgressBar } from '../progress.js';
import { noOutcome } from './rebuild-outcome.js';
import type { RebuildOutcome } from './rebuild-outcome.js';

const READ_MODELS: readonly ServiceReadModels[] = [SESSIONS_READ_MODELS, MESSAGING_READ_MODELS, EVENTS_READ_MODELS];

/**
 * Embedded mode: rebuilds the read models in the files under the data dir, reading the services'
 * event stores as the audit commands do. A server running on the same files keeps answering from
 * the live read models and picks each new one up when it is swapped in (see swapGeneration).
 */
export async function rebuildLocally(config: SwitchboardConfig, targets: readonly RebuildTarget[]): Promise<RebuildOutcome> {
  const outcome = noOutcome();
  await withAuditedStores(config, targets.map((t) => t.service), async (stores) => {
    for (const { service, projections } of targets) {
      const opened = storeOf(stores, service);
      if (opened?.store === undefined) {
        outcome.skipped.push({ service, reason: `no event store yet (${opened?.where ?? service}): nothing to rebuild from` });
        continue;
      }
      const readModels = READ_MODELS.find((r) => r.service === service)!;
      for (const projection of readModels.projections.filter((p) => projections.includes(p.name))) {
        const bar = new ProgressBar(`${service} ${projection.name}`, 'events');
        try {
          const result = await rebuildProjection({ store: opened.store, file: readModels.file(config), projection, onProgress: (p) => bar.update(p.events, p.total === 0 ? 1 : p.events / p.total) });
          outcome.rebuilt.push({ service, replica: 'local', result });
        } catch (error) {
          outcome.failed.push({ service, replica: 'local', projection: projection.name, message: error instanceof Error ? error.message : String(error) });
        } finally {
          bar.end();
        }
      }
    }
  });
  return outcome;
}
