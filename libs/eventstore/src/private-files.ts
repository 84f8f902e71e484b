import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Everything under `SWITCHBOARD_DATA_DIR` (chat credentials, events, media) is the owner's
 * alone: folders 0700, files 0600. Plain Node writes pass these modes when they create a file;
 * SQLite files need `preparePrivateSqliteFile`, since SQLite creates a new database 0644.
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates `dir` and its missing parents 0700, and narrows it if an older version left it wider. */
export function ensurePrivateDir(dir: string): string {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  narrow(dir, PRIVATE_DIR_MODE);
  return dir;
}

/**
 * Creates the database file 0600 (in a 0700 folder) before SQLite opens it: SQLite gives the
 * -wal, -shm and -journal files it creates the main file's mode. Files an older version left
 * wider are narrowed, their leftover -wal/-shm included.
 */
export function preparePrivateSqliteFile(file: string): void {
  if (file === ':memory:' || file === '') return;
  ensurePrivateDir(dirname(file));
  closeSync(openSync(file, 'a', PRIVATE_FILE_MODE));
  for (const path of [file, `${file}-wal`, `${file}-shm`, `${file}-journal`]) narrow(path, PRIVATE_FILE_MODE);
}

/** Takes away every permission bit beyond `allowed`; a missing path or one we do not own is left as it is. */
function narrow(path: string, allowed: number): void {
  const stats = statSync(path, { throwIfNoEntry: false });
  if (!stats || (stats.mode & 0o777 & ~allowed) === 0) return;
  // Only the owner may chmod: a file of another user (a root-made volume) would fail the start.
  if (process.getuid && stats.uid !== process.getuid()) return;
  chmodSync(path, stats.mode & allowed);
}
