import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

/** Files of the emulator's data directory are its own user's alone (they hold the network's keys). */
export const FILE_MODE = 0o600;
export const DIR_MODE = 0o700;

/** Writes `text` whole or not at all (temp file + rename): a crash leaves the old file or the new one. */
export function writeAtomically(path: string, text: string): void {
  writeFileSync(`${path}.tmp`, text, { mode: FILE_MODE });
  renameSync(`${path}.tmp`, path);
}

/** The file's text, or undefined when there is no such file. */
export function readTextIfAny(path: string): string | undefined {
  return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
}
