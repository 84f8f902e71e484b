import { parseArgs } from 'node:util';
import { AccountId, KeyId, Plan } from '@switchboard/contracts';

/** A parsed command line. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'accounts create'; name: string | undefined; plan: Plan }
  | { kind: 'accounts list' }
  | { kind: 'accounts set-plan'; accountId: AccountId; plan: Plan }
  | { kind: 'accounts close'; accountId: AccountId }
  | { kind: 'keys create'; accountId: AccountId; admin: boolean }
  | { kind: 'keys list'; accountId: AccountId }
  | { kind: 'keys revoke'; keyId: KeyId };

export interface CliInvocation {
  command: CliCommand;
  json: boolean;
}

/** A command line that cannot be run; the message says what to type instead. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export const USAGE = `Usage: switchboard <command> [options]

Accounts
  switchboard accounts create --plan <plan> [--name <name>]   open an account; prints its first API key once
  switchboard accounts list                                   every account with its plan and today's usage
  switchboard accounts set-plan <accountId> <plan>            change the plan (applies to the next request)
  switchboard accounts close <accountId>                      close it: keys revoked, sessions deleted, history kept
Keys
  switchboard keys create <accountId> [--admin]               issue a key (scope "api", or "admin" with --admin); printed once
  switchboard keys list <accountId>                           the account's keys (never their secrets)
  switchboard keys revoke <keyId>                             revoke a key (effective within a second everywhere)

Options
  --json        machine-readable output
  -h, --help    this help

Plans: free (1 session, 50 messages/day), basic (5, 1,000), premium (20, 10,000), enterprise (unlimited).
Mode: with SWITCHBOARD_NATS_URL set, asks the quota service over NATS; otherwise works directly on
the event store in SWITCHBOARD_DATA_DIR (default ./data), also while the server is running.`;

const options = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  plan: { type: 'string' },
  admin: { type: 'boolean' },
} as const;

export function parseCommandLine(argv: readonly string[]): CliInvocation {
  let parsed;
  try {
    parsed = parseArgs({ args: [...argv], options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const json = values.json ?? false;
  if (values.help || positionals.length === 0) return { command: { kind: 'help' }, json };
  const [group, verb, ...rest] = positionals;
  return { command: toCommand(`${group} ${verb ?? ''}`.trim(), rest, values), json };
}

type Values = { name?: string | undefined; plan?: string | undefined; admin?: boolean | undefined };

function toCommand(kind: string, rest: string[], values: Values): CliCommand {
  switch (kind) {
    case 'accounts create':
      expectArgs(kind, rest, 0);
      return { kind, name: values.name, plan: parsePlan(values.plan, '--plan') };
    case 'accounts list':
      expectArgs(kind, rest, 0);
      return { kind };
    case 'accounts set-plan':
      expectArgs(kind, rest, 2);
      return { kind, accountId: parseWith(AccountId, rest[0], 'accountId'), plan: parsePlan(rest[1], 'plan') };
    case 'accounts close':
      expectArgs(kind, rest, 1);
      return { kind, accountId: parseWith(AccountId, rest[0], 'accountId') };
    case 'keys create':
      expectArgs(kind, rest, 1);
      return { kind, accountId: parseWith(AccountId, rest[0], 'accountId'), admin: values.admin ?? false };
    case 'keys list':
      expectArgs(kind, rest, 1);
      return { kind, accountId: parseWith(AccountId, rest[0], 'accountId') };
    case 'keys revoke':
      expectArgs(kind, rest, 1);
      return { kind, keyId: parseWith(KeyId, rest[0], 'keyId') };
    default:
      throw new UsageError(`unknown command "${kind}"; see switchboard --help`);
  }
}

function expectArgs(kind: string, rest: string[], count: number): void {
  if (rest.length !== count) throw new UsageError(`"switchboard ${kind}" takes ${count} argument${count === 1 ? '' : 's'}, got ${rest.length}; see switchboard --help`);
}

function parsePlan(value: string | undefined, what: string): Plan {
  if (value === undefined) throw new UsageError(`${what} is required: one of ${Plan.options.join(', ')}`);
  return parseWith(Plan, value, what);
}

function parseWith<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: { issues: { message: string }[] } } }, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new UsageError(`${what}: ${result.error.issues[0]?.message ?? 'invalid'}`);
}
