import { createBus } from '@switchboard/bus';
import type { SwitchboardConfig } from '@switchboard/service-kit';
import type { CliCommand } from '../args.js';
import type { CliOutput } from '../run.js';
import { rebuildOverBus } from './bus-rebuild.js';
import { rebuildOutput } from './rebuild-outcome.js';

export type RebuildCommand = Extract<CliCommand, { kind: 'projections rebuild' }>;

/**
 * `switchboard projections rebuild`: with SWITCHBOARD_NATS_URL set, every replica of each service
 * rebuilds its own read models when asked over NATS; otherwise the CLI rebuilds them in the files
 * under the data dir, beside a server that may be running on them.
 */
export async function runRebuildCommand(command: RebuildCommand, config: SwitchboardConfig, env: Record<string, string | undefined>): Promise<CliOutput> {
  if (!config.natsUrl) {
    // Loaded here, not by every CLI command: it brings the services' projections (and with them their packages).
    const { rebuildLocally } = await import('./local-rebuild.js');
    return rebuildOutput(await rebuildLocally(config, command.targets));
  }
  const bus = await createBus({ name: 'switchboard-cli', env });
  try {
    return rebuildOutput(await rebuildOverBus(bus, command.targets));
  } finally {
    await bus.close();
  }
}
