import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The built CLI (`bin/switchboard.js` -> dist), as an operator runs it.
const bin = fileURLToPath(new URL('../../bin/switchboard.js', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `switchboard …args` on `dataDir`, with none of this process's SWITCHBOARD_ variables (only `env`'s). */
export function runCli(args: readonly string[], dataDir: string, env: Record<string, string> = {}): Promise<CliRun> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('SWITCHBOARD_'))) as Record<string, string>;
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...clean, SWITCHBOARD_DATA_DIR: dataDir, ...env }, timeout: 120_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
  });
}
