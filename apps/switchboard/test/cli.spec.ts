import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessBus } from '@switchboard/bus';
import { PrivateNatsServer } from '@switchboard/bus/testing';
import { MintedApiKey, PublishedEvent, QuotaSubjects } from '@switchboard/contracts';
import { hashApiKey } from '@switchboard/service-kit';
import { startQuotaService } from '@switchboard/quota';
import { createLogger } from '@switchboard/telemetry';

// The built CLI (`bin/switchboard.js` -> dist), as an operator runs it.
const bin = fileURLToPath(new URL('../bin/switchboard.js', import.meta.url));
const quotaMain = fileURLToPath(new URL('../../../services/quota/dist/src/main.js', import.meta.url));
const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sb-cli-'));
  dirs.push(dir);
  return dir;
}

interface Run { code: number; stdout: string; stderr: string }

function cli(args: string[], env: Record<string, string>): Promise<Run> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SWITCHBOARD_'))) as Record<string, string>;
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...clean, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

async function cliJson<T>(args: string[], env: Record<string, string>): Promise<T> {
  const run = await cli([...args, '--json'], env);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as T;
}

afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('switchboard CLI, embedded mode (no SWITCHBOARD_NATS_URL)', () => {
  it('creates an account with a key shown once, issues and revokes keys, lists them', async () => {
    const env = { SWITCHBOARD_DATA_DIR: tempDir() };
    const created = await cliJson<{ accountId: string; name: string; plan: string; keyId: string; apiKey: string }>(
      ['accounts', 'create', '--plan', 'basic', '--name', 'Acme support'], env,
    );
    expect(created).toMatchObject({ name: 'Acme support', plan: 'basic' });
    expect(MintedApiKey.safeParse(created.apiKey).success).toBe(true);
    const human = await cli(['accounts', 'create', '--plan', 'free'], env);
    expect(human.stdout).toMatch(/^account: +acc_\w{26}\nname: +-\nplan: +free\nkey id: +key_\w{26}\napi key: +sbk_[\w-]{43}\nStore this key now/);
    const admin = await cliJson<{ keyId: string; scopes: string[]; apiKey: string }>(['keys', 'create', created.accountId, '--admin'], env);
    expect(admin.scopes).toEqual(['admin']);
    const revoked = await cliJson<{ keyId: string; revokedAt: string }>(['keys', 'revoke', created.keyId], env);
    expect(revoked.keyId).toBe(created.keyId);
    const { keys } = await cliJson<{ keys: { keyId: string; revokedAt: string | null }[] }>(['keys', 'list', created.accountId], env);
    expect(keys.map((k) => [k.keyId, k.revokedAt])).toEqual([[created.keyId, revoked.revokedAt], [admin.keyId, null]]);
    // Listing never shows a secret or a hash.
    const listed = await cli(['keys', 'list', created.accountId], env);
    expect(listed.stdout).toMatch(/^KEY +SCOPES +CREATED +REVOKED\n/);
    expect(listed.stdout).not.toMatch(/sbk_|[0-9a-f]{64}/);
    const table = await cli(['accounts', 'list'], env);
    expect(table.stdout.split('\n')[0]).toMatch(/^ACCOUNT +NAME +PLAN +SESSIONS +MESSAGES TODAY +CLOSED$/);
    expect(table.stdout).toContain('Acme support');
    const set = await cliJson<{ plan: string }>(['accounts', 'set-plan', created.accountId, 'premium'], env);
    expect(set.plan).toBe('premium');
  });

  it('closes an account: its keys revoked, its sessions left to the running server, still listed as closed; closing again is harmless', async () => {
    const env = { SWITCHBOARD_DATA_DIR: tempDir() };
    const created = await cliJson<{ accountId: string; keyId: string }>(['accounts', 'create', '--plan', 'basic', '--name', 'Leaving'], env);
    await cliJson(['keys', 'create', created.accountId, '--admin'], env);
    const closed = await cliJson<{ accountId: string; closedAt: string; sessionsDeleted: number | null; keysRevoked: number }>(['accounts', 'close', created.accountId], env);
    expect(closed).toEqual({ accountId: created.accountId, closedAt: expect.any(String), sessionsDeleted: null, keysRevoked: 2 });
    const { keys } = await cliJson<{ keys: { revokedAt: string | null }[] }>(['keys', 'list', created.accountId], env);
    expect(keys.map((k) => k.revokedAt)).toEqual([closed.closedAt, closed.closedAt]);
    const again = await cli(['accounts', 'close', created.accountId], env);
    expect([again.code, again.stderr]).toEqual([0, '']);
    expect(again.stdout).toMatch(new RegExp(`^account: +${created.accountId}\nclosed at: +${closed.closedAt}\nkeys revoked: +0\nsessions deleted: +by the running server`));
    const table = await cli(['accounts', 'list'], env);
    expect(table.stdout).toMatch(new RegExp(`${created.accountId} +Leaving +basic +0 +0 +${closed.closedAt}`));
    const refused = await cli(['accounts', 'set-plan', created.accountId, 'premium'], env);
    expect([refused.code, refused.stderr]).toEqual([1, `switchboard: FORBIDDEN: Account ${created.accountId} was closed at ${closed.closedAt}: it takes no new sessions, messages, keys or changes.\n`]);
    const unknown = await cli(['accounts', 'close', 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F'], env);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'switchboard: ACCOUNT_NOT_FOUND: No account with this id exists.\n']);
    const usage = await cli(['accounts', 'close'], env);
    expect([usage.code, usage.stderr]).toEqual([2, 'switchboard: "switchboard accounts close" takes 1 argument, got 0; see switchboard --help\n']);
  });

  it('explains mistakes: usage errors exit 2, domain errors exit 1 with their code', async () => {
    const env = { SWITCHBOARD_DATA_DIR: tempDir() };
    const noPlan = await cli(['accounts', 'create'], env);
    expect([noPlan.code, noPlan.stderr]).toEqual([2, 'switchboard: --plan is required: one of free, basic, premium, enterprise\n']);
    const unknown = await cli(['keys', 'revoke', 'key_01JD8Z5X0A1B2C3D4E5F6G7H8J'], env);
    expect([unknown.code, unknown.stderr]).toEqual([1, 'switchboard: KEY_NOT_FOUND: No API key with this id exists.\n']);
    const help = await cli(['--help'], env);
    expect(help.stdout).toContain('switchboard keys revoke <keyId>');
  });

  it('works next to a running server, which publishes what the CLI wrote', async () => {
    const dataDir = tempDir();
    const bus = new InProcessBus();
    const logger = createLogger({ service: 'quota', level: 'silent' });
    const service = await startQuotaService({ bus, config: { dataDir, defaultPlan: 'enterprise' }, logger });
    try {
      const revocations: PublishedEvent[] = [];
      await bus.subscribe('sb.v1.evt.account.ApiKeyRevoked', (m) => void revocations.push(PublishedEvent.parse(m.data)));
      const env = { SWITCHBOARD_DATA_DIR: dataDir };
      const created = await cliJson<{ accountId: string; keyId: string; apiKey: string }>(['accounts', 'create', '--plan', 'free'], env);
      await cliJson(['keys', 'revoke', created.keyId], env);
      await expect.poll(() => revocations.map((e) => (e.data as { keyId: string }).keyId), { timeout: 30_000 }).toEqual([created.keyId]);
      await expect(bus.request(QuotaSubjects.authenticate.subject, { keyHash: hashApiKey(created.apiKey) }, { timeoutMs: 10_000 })).rejects.toMatchObject({
        code: 'UNAUTHORIZED',
      });
    } finally {
      await service.close();
      await bus.close();
    }
  });
});

describe('switchboard CLI, distributed mode (SWITCHBOARD_NATS_URL)', () => {
  let nats: PrivateNatsServer;
  let quota: ReturnType<typeof spawn>;

  beforeAll(async () => {
    nats = await PrivateNatsServer.start();
    const env = { ...process.env, SWITCHBOARD_NATS_URL: nats.url, SWITCHBOARD_DATA_DIR: tempDir() };
    quota = spawn(process.execPath, [quotaMain], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      let out = '';
      quota.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('"msg":"quota service started"')) resolve();
      });
      quota.once('exit', (code) => reject(new Error(`quota service exited with ${code}`)));
    });
  }, 120_000);

  afterAll(async () => {
    if (quota && quota.exitCode === null) {
      const exited = new Promise((resolve) => quota.once('exit', resolve));
      quota.kill('SIGTERM');
      await exited;
    }
    await nats?.stop();
  });

  it('asks the quota service over NATS (its own data dir stays empty)', async () => {
    const env = { SWITCHBOARD_NATS_URL: nats.url, SWITCHBOARD_DATA_DIR: join(tempDir(), 'unused') };
    const created = await cliJson<{ accountId: string; keyId: string }>(['accounts', 'create', '--plan', 'premium', '--name', 'Remote'], env);
    const { accounts } = await cliJson<{ accounts: { accountId: string; name: string | null; plan: string }[] }>(['accounts', 'list'], env);
    // The bootstrap account the service opened on its first start, then ours.
    expect(accounts.map((a) => [a.name, a.plan])).toEqual([['bootstrap', 'enterprise'], ['Remote', 'premium']]);
    const revoked = await cliJson<{ keyId: string }>(['keys', 'revoke', created.keyId], env);
    expect(revoked.keyId).toBe(created.keyId);
    const gone = await cli(['keys', 'list', 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F'], env);
    expect([gone.code, gone.stderr]).toEqual([1, 'switchboard: ACCOUNT_NOT_FOUND: No account with this id exists.\n']);
  });

  it('closes an account through the quota service, then asks the sessions service; says which one does not answer', async () => {
    const env = { SWITCHBOARD_NATS_URL: nats.url };
    const created = await cliJson<{ accountId: string }>(['accounts', 'create', '--plan', 'free'], env);
    // Only the quota service runs here: the closure is recorded, the sessions' part is not reachable.
    const run = await cli(['accounts', 'close', created.accountId], env);
    expect([run.code, run.stderr]).toEqual([1, `switchboard: no sessions service answers on ${nats.url}; is it running?\n`]);
    const { accounts } = await cliJson<{ accounts: { accountId: string; closedAt: string | null }[] }>(['accounts', 'list'], env);
    expect(accounts.find((a) => a.accountId === created.accountId)?.closedAt).toEqual(expect.any(String));
  });

  it('says so when no quota service answers', async () => {
    const other = await PrivateNatsServer.start();
    try {
      const run = await cli(['accounts', 'list'], { SWITCHBOARD_NATS_URL: other.url });
      expect([run.code, run.stderr]).toEqual([1, `switchboard: no quota service answers on ${other.url}; is it running?\n`]);
    } finally {
      await other.stop();
    }
  });
});
