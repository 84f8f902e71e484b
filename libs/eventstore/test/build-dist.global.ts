import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const projectRoot = path.resolve(import.meta.dirname, '..');
const builtEntry = path.join(projectRoot, 'dist/src/index.js');

/**
 * The child-process fixtures run under plain node on the built library. `nx run …:test`
 * builds first; a bare `vitest run` gets the same guarantee here, rebuilding only when a
 * source file is newer than the build, so the fixtures never run stale code.
 */
export default function buildDistIfStale(): void {
  if (fs.existsSync(builtEntry) && newestSourceTime() <= fs.statSync(builtEntry).mtimeMs) return;
  const tsc = path.join(projectRoot, '../../node_modules/.bin/tsc');
  execFileSync(tsc, ['-p', 'tsconfig.lib.json'], { cwd: projectRoot, stdio: 'inherit' });
}

function newestSourceTime(): number {
  const sources = fs.readdirSync(path.join(projectRoot, 'src'), { recursive: true, withFileTypes: true });
  return Math.max(...sources.filter((entry) => entry.isFile()).map((entry) => fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs));
}
