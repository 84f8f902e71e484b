import { startEmulator } from './emulator.js';
import type { Addressing } from './inbound-spec.js';
import { parseWaVersion } from './versions.js';

const port = (name: string, fallback: number): number => {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || value > 65535) throw new Error(`${name} must be a port number, got ${raw}`);
  return value;
};

const addressing = (raw: string | undefined): Addressing => {
  if (raw === undefined || raw === '') return 'lid';
  if (raw !== 'lid' && raw !== 'pn') throw new Error(`SWITCHBOARD_EMULATOR_ADDRESSING must be lid or pn, got ${raw}`);
  return raw;
};

const main = async (): Promise<void> => {
  const emulator = await startEmulator({
    port: port('SWITCHBOARD_EMULATOR_PORT', 0),
    controlPort: port('SWITCHBOARD_EMULATOR_CONTROL_PORT', 8090),
    addressing: addressing(process.env.SWITCHBOARD_EMULATOR_ADDRESSING),
    ...(process.env.SWITCHBOARD_EMULATOR_MIN_VERSION ? { minVersion: parseWaVersion(process.env.SWITCHBOARD_EMULATOR_MIN_VERSION) } : {}),
    ...(process.env.SWITCHBOARD_EMULATOR_DATA_DIR ? { dataDir: process.env.SWITCHBOARD_EMULATOR_DATA_DIR } : {}),
    onError: (error) => console.error('[chat-emulator] connection error:', error instanceof Error ? error.message : error),
  });
  console.log(`chat emulator WebSocket URL: ${emulator.wsUrl}`);
  console.log(`chat emulator control URL:   ${emulator.controlUrl}`);
  console.log(`chat emulator root key:      ${emulator.rootPublicKey.toString('hex')}`);
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    console.log(`chat emulator stopping (${signal})`);
    void emulator.stop().then(() => process.exit(0));
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
};

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
