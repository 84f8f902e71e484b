import type { AccountView, ApiKeyScope, ApiKeyView, EraseAccountResult } from '@switchboard/contracts';
import { hashApiKey, mintApiKey } from '@switchboard/service-kit';
import type { AuditCommand, CliCommand } from './args.js';
import { USAGE } from './args.js';
import type { AdminClient, ClosedAccount } from './client.js';
import { fields, orNone, table } from './format.js';

/** What a command prints: a human text, and the value `--json` prints instead; and how it exits (default 0). */
export interface CliOutput {
  text: string;
  json: unknown;
  exitCode?: number;
}

/** A command that printed its output as it went (a long history is never held in memory): only how it exits. */
export interface PrintedOutput {
  printed: true;
  exitCode: number;
}

const keyWarning = 'Store this key now: it is shown only once and cannot be recovered.';

export async function runCommand(command: Exclude<CliCommand, { kind: 'help' } | AuditCommand | { kind: 'projections rebuild' }>, client: AdminClient): Promise<CliOutput> {
  switch (command.kind) {
    case 'accounts create': {
      const apiKey = mintApiKey();
      const key = { keyHash: hashApiKey(apiKey), scopes: ['api' as const] };
      const created = await client.createAccount({ plan: command.plan, key, ...(command.name ? { name: command.name } : {}) });
      const json = { accountId: created.accountId, name: created.name, plan: created.plan, keyId: created.keyId, apiKey };
      const text = fields([['account', created.accountId], ['name', orNone(created.name)], ['plan', created.plan], ['key id', orNone(created.keyId)], ['api key', apiKey]]);
      return { text: `${text}\n${keyWarning}`, json };
    }
    case 'accounts list': {
      const accounts = await allAccounts(client);
      return { text: accounts.length === 0 ? 'No accounts.' : accountTable(accounts), json: { accounts, total: accounts.length } };
    }
    case 'accounts set-plan': {
      const account = await client.updateAccount({ accountId: command.accountId, plan: command.plan });
      return { text: accountTable([account]), json: account };
    }
    case 'accounts close':
      return closedOutput(await client.closeAccount({ accountId: command.accountId }));
    case 'accounts erase':
      return erasedOutput(await client.eraseAccount({ accountId: command.accountId }));
    case 'keys create': {
      const apiKey = mintApiKey();
      const scopes: ApiKeyScope[] = command.admin ? ['admin'] : ['api'];
      const key = await client.createKey({ accountId: command.accountId, keyHash: hashApiKey(apiKey), scopes });
      const text = fields([['key id', key.keyId], ['account', key.accountId], ['scopes', key.scopes.join(',')], ['api key', apiKey]]);
      return { text: `${text}\n${keyWarning}`, json: { keyId: key.keyId, accountId: key.accountId, scopes: key.scopes, apiKey } };
    }
    case 'keys list': {
      const { keys } = await client.listKeys({ accountId: command.accountId });
      return { text: keys.length === 0 ? 'No keys.' : keyTable(keys), json: { keys } };
    }
    case 'keys revoke': {
      const revoked = await client.revokeKey({ keyId: command.keyId });
      return { text: `Key ${revoked.keyId} of account ${revoked.accountId} revoked at ${revoked.revokedAt}.`, json: revoked };
    }
  }
}

export const helpOutput: CliOutput = { text: USAGE, json: { usage: USAGE } };

async function allAccounts(client: AdminClient): Promise<AccountView[]> {
  const accounts: AccountView[] = [];
  for (;;) {
    const page = await client.listAccounts({ limit: 100, offset: accounts.length });
    accounts.push(...page.accounts);
    if (page.accounts.length === 0 || accounts.length >= page.total) return accounts;
  }
}

function accountTable(accounts: AccountView[]): string {
  const rows = accounts.map((a) => [a.accountId, orNone(a.name), a.plan, String(a.activeSessions), String(a.messagesToday), orNone(a.closedAt)]);
  return table(['ACCOUNT', 'NAME', 'PLAN', 'SESSIONS', 'MESSAGES TODAY', 'CLOSED'], rows);
}

/** As the admin DELETE answers; `sessionsDeleted` null: left to the running server (see ClosedAccount). */
function closedOutput(closed: ClosedAccount): CliOutput {
  const { accountId, closedAt, keysRevoked, sessionsDeleted } = closed;
  const sessions = sessionsDeleted === null ? 'by the running server, on the closure (or at its next start)' : String(sessionsDeleted.length);
  const text = fields([['account', accountId], ['closed at', closedAt], ['keys revoked', String(keysRevoked.length)], ['sessions deleted', sessions]]);
  return { text, json: { accountId, closedAt, sessionsDeleted: sessionsDeleted?.length ?? null, keysRevoked: keysRevoked.length } };
}

/** As the admin POST …/erase answers. */
function erasedOutput(erased: EraseAccountResult): CliOutput {
  const text = fields([
    ['account', erased.accountId],
    ['erased at', erased.erasedAt],
    ['keys destroyed', String(erased.keysDestroyed)],
    ['media deleted', String(erased.blobsDeleted)],
    ['recorded events erased', String(erased.publicEventsErased)],
  ]);
  return { text: `${text}\nMessage contents now read "[erased]"; ids, times, statuses and the hash chain are kept (switchboard audit verify checks them).`, json: erased };
}

function keyTable(keys: ApiKeyView[]): string {
  const rows = keys.map((k) => [k.keyId, k.scopes.join(','), k.createdAt, orNone(k.revokedAt)]);
  return table(['KEY', 'SCOPES', 'CREATED', 'REVOKED'], rows);
}
