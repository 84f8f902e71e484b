import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The emulator as its own process, so its CPU and heap stay out of the driver's figures. */
export interface EmulatorProcess {
  wsUrl: string;
  controlUrl: string;
  stop(): Promise<void>;
}

const EMULATOR_MAIN = fileURLToPath(new URL('../../../../tools/chat-emulator/dist/src/main.js', import.meta.url));
const URL_PATTERN = /\b(wss?|https?):\/\/(?:127\.0\.0\.1|localhost|\[::1\]):\d+[^\s"',]*/g;

/**
 * Spawns `node tools/chat-emulator/dist/src/main.js` on free ports and reads the WebSocket and
 * control URLs it prints. Fails after `timeoutMs` if it prints neither.
 */
export function spawnEmulator(options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): Promise<EmulatorProcess> {
  const child = spawn(process.execPath, [EMULATOR_MAIN], {
    env: { ...process.env, SWITCHBOARD_EMULATOR_PORT: '0', SWITCHBOARD_EMULATOR_CONTROL_PORT: '0', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let printed = '';
    const timer = setTimeout(() => fail(new Error(`the emulator printed no URLs within ${options.timeoutMs ?? 20_000} ms:\n${printed}`)), options.timeoutMs ?? 20_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGTERM');
      reject(error);
    };
    const onOutput = (chunk: Buffer) => {
      printed += chunk.toString();
      const urls = [...printed.matchAll(URL_PATTERN)].map((match) => match[0]);
      const wsUrl = urls.find((url) => url.startsWith('ws'));
      const controlUrl = urls.find((url) => url.startsWith('http') && !url.includes('/trust'));
      if (!wsUrl || !controlUrl) return;
      clearTimeout(timer);
      resolve({ wsUrl, controlUrl, stop: () => stopChild(child) });
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', onOutput);
    child.once('exit', (code) => fail(new Error(`the emulator exited with ${code}:\n${printed}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.removeAllListeners('exit');
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  });
}
