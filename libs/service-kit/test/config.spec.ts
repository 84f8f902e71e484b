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

  it('names every bad variable at once', () => {
    expect(() => loadConfig({ SWITCHBOARD_PORT: 'eighty', SWITCHBOARD_DEFAULT_PLAN: 'gold' })).toThrow(
      expect.objectContaining({ name: 'ConfigError', message: expect.stringMatching(/SWITCHBOARD_PORT.*SWITCHBOARD_DEFAULT_PLAN/) }),
    );
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
});
