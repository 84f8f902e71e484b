import { parseArgs } from 'node:util';
import { AccountId, AuditExportFormat, AuditTimeBound, KeyId, MessageId, Phone, Plan, ProjectionName, REBUILDABLE_PROJECTIONS, RebuildableService, SessionId, auditTimeOf, serviceOfProjection } from '@switchboard/contracts';
import type { ServiceName } from '@switchboard/service-kit';
import type { FactQuery, TimeWindow } from './audit/fact-query.js';

/** A parsed command line. */
export type CliCommand =
  | { kind: 'help' }
  | { kind: 'accounts create'; name: string | undefined; plan: Plan }
  | { kind: 'accounts list' }
  | { kind: 'accounts set-plan'; accountId: AccountId; plan: Plan }
  | { kind: 'accounts close'; accountId: AccountId }
  | { kind: 'accounts erase'; accountId: AccountId }
  | { kind: 'keys create'; accountId: AccountId; admin: boolean }
  | { kind: 'keys list'; accountId: AccountId }
  | { kind: 'keys revoke'; keyId: KeyId }
  | { kind: 'audit verify'; service: ServiceName | undefined; stream: string | undefined; file: string | undefined }
  | { kind: 'audit history'; query: FactQuery; window: TimeWindow }
  | { kind: 'audit export'; accountId: AccountId; window: TimeWindow; format: AuditExportFormat; out: string }
  | { kind: 'projections rebuild'; targets: RebuildTarget[] };

/** The read models of one service to rebuild. */
export interface RebuildTarget {
  service: RebuildableService;
  projections: ProjectionName[];
}

/** The commands that read the event stores directly (`switchboard audit …`). */
export type AuditCommand = Extract<CliCommand, { kind: `audit ${string}` }>;

/** The services that own event stores, in the order `audit` walks them. */
export const AUDITED_SERVICES: readonly ServiceName[] = ['sessions', 'messaging', 'quota', 'events'];

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
  switchboard accounts erase <accountId>                      erase its message contents (crypto-shredding): they read
                                                              "[erased]"; ids, times, statuses and the hash chain stay
Keys
  switchboard keys create <accountId> [--admin]               issue a key (scope "api", or "admin" with --admin); printed once
  switchboard keys list <accountId>                           the account's keys (never their secrets)
  switchboard keys revoke <keyId>                             revoke a key (effective within a second everywhere)
Audit
  switchboard audit verify [--service <s>] [--stream <name>]  check every event's hash chain; exit 1 on any event
                                                              altered, removed, inserted or reordered
  switchboard audit verify --file <export>                    check an export: its chains and its manifest; exit 1 on any finding
  switchboard audit history --message <id> | --session <id> | --account <id> | --contact <phone> [--from <t>] [--to <t>]
                                                              the recorded facts in order: time, service, event, what
                                                              matters, and the request that caused it
  switchboard audit export --account <id> --out <file> [--format jsonl|csv] [--from <t>] [--to <t>]
                                                              every event of the account, then a manifest to check it by
Read models
  switchboard projections rebuild [--service <s>] [--projection <name>]
                                                              rebuild read models from zero while the services keep
                                                              answering from the old ones; swapped in once caught up

Options
  --json        machine-readable output
  -h, --help    this help

Services: sessions, messaging, quota, events (their event stores: SQLite under SWITCHBOARD_DATA_DIR, or
SWITCHBOARD_EVENTSTORE_URL). Audit commands read the stores directly, in either mode. Times (--from, inclusive;
--to, exclusive) are ISO 8601 UTC times or UTC days (2026-11-21 is its 00:00).
Plans: free (1 session, 50 messages/day), basic (5, 1,000), premium (20, 10,000), enterprise (unlimited).
Read models: session-list (sessions), message-status and message-history (messaging), webhooks (events);
rebuilt in the files under SWITCHBOARD_DATA_DIR, or with SWITCHBOARD_NATS_URL set by every replica of the service.
Mode: with SWITCHBOARD_NATS_URL set, asks the quota service over NATS; otherwise works directly on
the event store in SWITCHBOARD_DATA_DIR (default ./data), also while the server is running.`;

const options = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  plan: { type: 'string' },
  admin: { type: 'boolean' },
  service: { type: 'string' },
  stream: { type: 'string' },
  file: { type: 'string' },
  message: { type: 'string' },
  session: { type: 'string' },
  account: { type: 'string' },
  contact: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  format: { type: 'string' },
  out: { type: 'string' },
  projection: { type: 'string' },
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

type Values = { [K in keyof typeof options]?: (typeof options)[K]['type'] extends 'boolean' ? boolean | undefined : string | undefined };

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
    case 'accounts erase':
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
    case 'audit verify':
      expectArgs(kind, rest, 0);
      if (values.file !== undefined && (values.service !== undefined || values.stream !== undefined)) throw new UsageError('--file checks an export on its own: leave out --service and --stream');
      return { kind, service: parseService(values.service), stream: parseStream(values.stream), file: parseFile(values.file, '--file') };
    case 'audit history':
      expectArgs(kind, rest, 0);
      return { kind, query: parseFactQuery(values), window: parseWindow(values) };
    case 'audit export':
      expectArgs(kind, rest, 0);
      if (values.account === undefined) throw new UsageError('--account is required: the account whose events are exported');
      return {
        kind,
        accountId: parseWith(AccountId, values.account, '--account'),
        window: parseWindow(values),
        format: parseWith(AuditExportFormat, values.format ?? 'jsonl', '--format'),
        out: parseFile(values.out, '--out') ?? missing('--out is required: the file to write'),
      };
    case 'projections rebuild':
      expectArgs(kind, rest, 0);
      return { kind, targets: parseRebuildTargets(values.service, values.projection) };
    default:
      throw new UsageError(`unknown command "${kind}"; see switchboard --help`);
  }
}

function expectArgs(kind: string, rest: string[], count: number): void {
  if (rest.length !== count) throw new UsageError(`"switchboard ${kind}" takes ${count} argument${count === 1 ? '' : 's'}, got ${rest.length}; see switchboard --help`);
}

function parseService(value: string | undefined): ServiceName | undefined {
  if (value === undefined) return undefined;
  const service = AUDITED_SERVICES.find((name) => name === value);
  if (service === undefined) throw new UsageError(`--service: one of ${AUDITED_SERVICES.join(', ')} (got "${value}")`);
  return service;
}

const QUOTA_READ_MODELS = 'quota keeps no read models on disk: each quota process rebuilds its own in memory from the event store whenever it starts (restart it to rebuild them)';

/** Every rebuildable read model, or those of one service, or one read model (whose service --service may name). */
function parseRebuildTargets(service: string | undefined, projection: string | undefined): RebuildTarget[] {
  if (service === 'quota') throw new UsageError(`--service quota: ${QUOTA_READ_MODELS}`);
  const named = service === undefined ? undefined : oneOf(RebuildableService.options, service, '--service');
  if (projection === undefined) {
    const services = named === undefined ? RebuildableService.options : [named];
    return services.map((s) => ({ service: s, projections: [...REBUILDABLE_PROJECTIONS[s]] }));
  }
  const name = oneOf(ProjectionName.options, projection, '--projection');
  const owner = serviceOfProjection(name);
  if (named !== undefined && named !== owner) throw new UsageError(`--projection ${name} is a read model of ${owner}, not of ${named}`);
  return [{ service: owner, projections: [name] }];
}

function oneOf<T extends string>(names: readonly T[], value: string, what: string): T {
  const found = names.find((name) => name === value);
  if (found === undefined) throw new UsageError(`${what}: one of ${names.join(', ')} (got "${value}")`);
  return found;
}

function parseStream(value: string | undefined): string | undefined {
  if (value !== undefined && value.trim() === '') throw new UsageError('--stream: a stream name, such as message-msg_01J…');
  return value;
}

/** Exactly one of --message, --session, --account, --contact. */
function parseFactQuery(values: Values): FactQuery {
  const given = (['message', 'session', 'account', 'contact'] as const).filter((name) => values[name] !== undefined);
  if (given.length !== 1) throw new UsageError('give one of --message <id>, --session <id>, --account <id> or --contact <phone>');
  switch (given[0]!) {
    case 'message':
      return { by: 'message', messageId: parseWith(MessageId, values.message, '--message') };
    case 'session':
      return { by: 'session', sessionId: parseWith(SessionId, values.session, '--session') };
    case 'account':
      return { by: 'account', accountId: parseWith(AccountId, values.account, '--account') };
    case 'contact':
      return { by: 'contact', phone: parseWith(Phone, values.contact, '--contact') };
  }
}

function parseWindow(values: Values): TimeWindow {
  const bound = (value: string | undefined, what: string) => (value === undefined ? undefined : auditTimeOf(parseWith(AuditTimeBound, value, what)));
  const window = { from: bound(values.from, '--from'), to: bound(values.to, '--to') };
  if (window.from !== undefined && window.to !== undefined && window.from >= window.to) throw new UsageError('--from must come before --to');
  return window;
}

function parseFile(value: string | undefined, what: string): string | undefined {
  if (value !== undefined && value.trim() === '') throw new UsageError(`${what}: a file name`);
  return value;
}

function missing(message: string): never {
  throw new UsageError(message);
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
