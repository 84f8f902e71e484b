import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';

describe('loadConfig', () => {
  it('applies the defaults of operations.md', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8080, host: undefined, dataDir: './data', natsUrl: undefined, chatNetwork: 'whatsapp',
      emulatorControlPort: 8090, emulatorAddressing: 'lid', defaultPlan: 'enterprise', sendDeadlineMs: 10_000,
    });
  });

  it('reads every variable', () => {
    const config = loadConfig({
      SWITCHBOARD_PORT: '9000', SWITCHBOARD_NATS_URL: 'nats://127.0.0.1:4222', SWITCHBOARD_CHAT_NETWORK: 'emulator',
      SWITCHBOARD_EMULATOR_URL: 'ws://127.0.0.1:7000/ws/chat', SWITCHBOARD_DEFAULT_PLAN: 'free', SWITCHBOARD_SEND_DEADLINE_MS: '250',
    });
    expect(config).toMatchObject({ port: 9000, natsUrl: 'nats://127.0.0.1:4222', chatNetwork: 'emulator', defaultPlan: 'free', sendDeadlineMs: 250 });
  });

  const problemsOf = (env: Record<string, string>): readonly string[] => {
    try {
      loadConfig(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    return [];
  };

  it.each([
    [{ SWITCHBOARD_PORT: 'abc' }, 'SWITCHBOARD_PORT: expected a port number (0-65535), got "abc"'],
    [{ SWITCHBOARD_PORT: '70000' }, 'SWITCHBOARD_PORT: expected a port number (0-65535), got "70000"'],
    [{ SWITCHBOARD_CHAT_NETWORK: 'telegram' }, 'SWITCHBOARD_CHAT_NETWORK: expected "whatsapp" or "emulator", got "telegram"'],
    [{ SWITCHBOARD_DEFAULT_PLAN: 'gold' }, 'SWITCHBOARD_DEFAULT_PLAN: expected "free", "basic", "premium" or "enterprise", got "gold"'],
    [{ SWITCHBOARD_SEND_DEADLINE_MS: '0' }, 'SWITCHBOARD_SEND_DEADLINE_MS: expected whole milliseconds (at least 1), got "0"'],
    [{ SWITCHBOARD_PACING_GAP_MS: 'gold=100' }, 'SWITCHBOARD_PACING_GAP_MS: expected whole milliseconds, or comma-separated <plan>=<ms> items (e.g. 1000,enterprise=0), got "gold=100"'],
    [{ SWITCHBOARD_PACING_NEW_CONTACT_GAP_MS: '-5' }, 'SWITCHBOARD_PACING_NEW_CONTACT_GAP_MS: expected whole milliseconds, or comma-separated <plan>=<ms> items (e.g. 1000,enterprise=0), got "-5"'],
    [{ SWITCHBOARD_MEDIA_ALLOW_LOOPBACK: 'yes' }, 'SWITCHBOARD_MEDIA_ALLOW_LOOPBACK: expected "true", "false", "1" or "0", got "yes"'],
    [{ SWITCHBOARD_NATS_URL: 'http://127.0.0.1:4222' }, 'SWITCHBOARD_NATS_URL: expected NATS server URLs, comma-separated (nats://host:4222), got "http://127.0.0.1:4222"'],
    [{ SWITCHBOARD_EVENTSTORE_URL: 'mysql://db' }, 'SWITCHBOARD_EVENTSTORE_URL: expected a postgres://, postgresql://, kurrentdb://, kurrent://, kdb:// or esdb:// connection string, got "mysql://db"'],
    // Secrets are named, never shown.
    [{ SWITCHBOARD_SECRET_KEY: 'hunter2' }, 'SWITCHBOARD_SECRET_KEY: expected 32 bytes as 64 hex characters or base64 (make one with: openssl rand -hex 32) (value not shown)'],
    [{ SWITCHBOARD_BOOTSTRAP_API_KEY: 'short' }, 'SWITCHBOARD_BOOTSTRAP_API_KEY: expected 16 to 512 printable ASCII characters, no spaces (e.g. sbk_ and openssl rand -hex 24) (value not shown)'],
    // A URL's password neither.
    [{ SWITCHBOARD_EVENTSTORE_URL: 'mysql://sb:hunter2@db' }, 'SWITCHBOARD_EVENTSTORE_URL: expected a postgres://, postgresql://, kurrentdb://, kurrent://, kdb:// or esdb:// connection string, got "mysql://sb:***@db"'],
  ])('one line for a bad value: %o', (env, line) => {
    expect(problemsOf(env)).toEqual([line]);
  });

  it('accepts what operators write: several NATS servers, a base64 key, host:port', () => {
    const config = loadConfig({
      SWITCHBOARD_NATS_URL: 'nats://a:4222, tls://b:4222,c:4222',
      SWITCHBOARD_SECRET_KEY: Buffer.alloc(32, 7).toString('base64'),
      SWITCHBOARD_EVENTSTORE_URL: 'kurrentdb+discover://node1:2113',
    });
    expect(config.natsUrl).toBe('nats://a:4222, tls://b:4222,c:4222');
  });

  it('reads send pacing as written, per plan or for all (sessions applies it per plan), 1000 and 5000 ms by default', () => {
    expect(loadConfig({})).toMatchObject({ pacingGapMs: '1000', pacingNewContactGapMs: '5000' });
    expect(loadConfig({ SWITCHBOARD_PACING_GAP_MS: ' 1000, enterprise=0 ', SWITCHBOARD_PACING_NEW_CONTACT_GAP_MS: '0' })).toMatchObject({
      pacingGapMs: '1000, enterprise=0',
      pacingNewContactGapMs: '0',
    });
  });

  it('names every bad variable at once, a line each', () => {
    expect(problemsOf({ SWITCHBOARD_PORT: 'eighty', SWITCHBOARD_DEFAULT_PLAN: 'gold' })).toEqual([
      'SWITCHBOARD_PORT: expected a port number (0-65535), got "eighty"',
      'SWITCHBOARD_DEFAULT_PLAN: expected "free", "basic", "premium" or "enterprise", got "gold"',
    ]);
  });

  it('refuses an emulator URL that is not on loopback', () => {
    expect(() => loadConfig({ SWITCHBOARD_EMULATOR_URL: 'ws://10.1.2.3:7000/ws/chat' })).toThrow(ConfigError);
    // A name resolves to whatever DNS says at connection time: only literal addresses count.
    expect(() => loadConfig({ SWITCHBOARD_EMULATOR_URL: 'ws://localhost:7000/ws/chat' })).toThrow(ConfigError);
    expect(loadConfig({ SWITCHBOARD_EMULATOR_URL: 'ws://[::1]:7000/ws/chat' }).emulatorUrl).toBe('ws://[::1]:7000/ws/chat');
  });

  it('reads SWITCHBOARD_EMULATOR_ADDRESSING: lid by default and when blank, pn, nothing else', () => {
    expect(loadConfig({ SWITCHBOARD_EMULATOR_ADDRESSING: ' ' }).emulatorAddressing).toBe('lid');
    expect(loadConfig({ SWITCHBOARD_EMULATOR_ADDRESSING: 'pn' }).emulatorAddressing).toBe('pn');
    expect(() => loadConfig({ SWITCHBOARD_EMULATOR_ADDRESSING: 'phone' })).toThrow(expect.objectContaining({ message: expect.stringContaining('SWITCHBOARD_EMULATOR_ADDRESSING') }));
  });

  it('reads SWITCHBOARD_METRICS_PORT, off when unset or blank', () => {
    expect(loadConfig({}).metricsPort).toBeUndefined();
    expect(loadConfig({ SWITCHBOARD_METRICS_PORT: ' ' }).metricsPort).toBeUndefined();
    expect(loadConfig({ SWITCHBOARD_METRICS_PORT: '9464' }).metricsPort).toBe(9464);
    expect(() => loadConfig({ SWITCHBOARD_METRICS_PORT: 'prometheus' })).toThrow(expect.objectContaining({ message: expect.stringContaining('SWITCHBOARD_METRICS_PORT') }));
  });

  it('reads SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY: 32 when unset or blank, a whole number of at least 1', () => {
    expect(loadConfig({}).sessionsResumeConcurrency).toBe(32);
    expect(loadConfig({ SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY: ' ' }).sessionsResumeConcurrency).toBe(32);
    expect(loadConfig({ SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY: '4' }).sessionsResumeConcurrency).toBe(4);
    expect(problemsOf({ SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY: '0' })).toEqual(['SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY: expected a whole number of sessions (at least 1), got "0"']);
    expect(problemsOf({ SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY: 'all' })).toEqual(['SWITCHBOARD_SESSIONS_RESUME_CONCURRENCY: expected a whole number of sessions (at least 1), got "all"']);
  });
});
