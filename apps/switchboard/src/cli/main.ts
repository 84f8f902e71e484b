import { RemoteError, ServiceCallError, createBus } from '@switchboard/bus';
import type { Bus } from '@switchboard/bus';
import { ConfigError, loadConfig } from '@switchboard/service-kit';
import { openQuotaEngine } from '@switchboard/quota';
import type { QuotaEngine } from '@switchboard/quota';
import { UsageError, parseCommandLine } from './args.js';
import type { AuditCommand, CliCommand } from './args.js';
import { runAuditCommand } from './audit/audit-commands.js';
import { runRebuildCommand } from './projections/rebuild-command.js';
import type { RebuildCommand } from './projections/rebuild-command.js';
import { busClient, embeddedClient } from './client.js';
import type { AdminClient } from './client.js';
import { helpOutput, runCommand } from './run.js';
import type { CliOutput, PrintedOutput } from './run.js';

/**
 * `switchboard …`: operator commands for accounts and keys, and audits of the event stores
 * (`audit …`, read directly from the stores the configuration names, in either mode). For accounts
 * and keys: distributed mode when
 * SWITCHBOARD_NATS_URL is set (the quota service answers over NATS, and the sessions service when
 * an account is closed), embedded otherwise (the quota domain on the SQLite store under
 * SWITCHBOARD_DATA_DIR; a running server picks the events up from the shared file and publishes
 * them, its sessions service deleting a closed account's sessions on the AccountClosed fact).
 */
export async function main(argv: readonly string[], env: Record<string, string | undefined>): Promise<number> {
  try {
    const { command, json } = parseCommandLine(argv);
    const output: CliOutput | PrintedOutput = command.kind === 'help'
      ? helpOutput
      : isAudit(command) ? await runAuditCommand(command, loadConfig(env), json)
        : isRebuild(command) ? await runRebuildCommand(command, loadConfig(env), env)
          : await withClient(env, (client) => runCommand(command, client));
    if ('printed' in output) return output.exitCode;
    process.stdout.write(`${json ? JSON.stringify(output.json, null, 2) : output.text}\n`);
    return output.exitCode ?? 0;
  } catch (error) {
    for (const line of describe(error, env)) process.stderr.write(`switchboard: ${line}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

async function withClient<T>(env: Record<string, string | undefined>, work: (client: AdminClient) => Promise<T>): Promise<T> {
  const config = loadConfig(env);
  if (config.natsUrl) {
    const bus: Bus = await createBus({ name: 'switchboard-cli', env });
    try {
      return await work(busClient(bus));
    } finally {
      await bus.close();
    }
  }
  const engine: QuotaEngine = await openQuotaEngine({ config });
  try {
    return await work(embeddedClient(engine.api, config));
  } finally {
    await engine.close();
  }
}

const isAudit = (command: CliCommand): command is AuditCommand => command.kind.startsWith('audit ');
const isRebuild = (command: CliCommand): command is RebuildCommand => command.kind === 'projections rebuild';

function describe(error: unknown, env: Record<string, string | undefined>): string[] {
  if (error instanceof ConfigError) return [...error.problems];
  if (error instanceof ServiceCallError && error.outcome === 'not_delivered') return [`no ${serviceOf(error.subject)} service answers on ${env['SWITCHBOARD_NATS_URL']}; is it running?`];
  if (error instanceof RemoteError || (error instanceof Error && 'code' in error && typeof error.code === 'string')) {
    return [`${(error as { code: string }).code}: ${error.message}`];
  }
  return [error instanceof Error ? error.message : String(error)];
}

/** `sb.v1.sessions.deleteAll` -> `sessions`. */
function serviceOf(subject: string | undefined): string {
  return /^sb\.v1\.(\w+)\./.exec(subject ?? '')?.[1] ?? 'quota';
}

process.exitCode = await main(process.argv.slice(2), process.env);
