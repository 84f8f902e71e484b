import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const mainJs = fileURLToPath(new URL('../dist/src/main.js', import.meta.url));

export interface QuotaProcess {
  readonly process: ChildProcess;
  /** Everything written on stdout so far. */
  output(): string;
  started: Promise<void>;
  stop(): Promise<void>;
}

/** `node services/quota/dist/src/main.js` (built by the test target) with the given environment. */
export function spawnQuotaProcess(env: Record<string, string>): QuotaProcess {
  const child = spawn(process.execPath, [mainJs], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const started = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes('"msg":"quota service started"')) resolve();
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => reject(new Error(`quota process exited with ${code}: ${stderr}`)));
  });
  started.catch(() => undefined);
  return {
    process: child,
    output: () => stdout,
    started,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
