import { existsSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/processes.js';

/** Every package named in backticks in the first column of the README's dependency tables. */
function documentedPackages(): Set<string> {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('## Dependencies and what each is for');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const names = section.split('\n').filter((line) => line.startsWith('| `')).flatMap((line) => [...line.split(' | ')[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!));
  return new Set(names);
}

describe("the README's dependency tables", () => {
  it('name every runtime dependency of every package in the repository', () => {
    const manifests = execFileSync('git', ['ls-files', '*package.json', 'package.json'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
    const runtime = new Set<string>();
    for (const file of manifests) {
      const manifest = JSON.parse(readFileSync(join(REPO_ROOT, file), 'utf8')) as { dependencies?: Record<string, string> };
      for (const name of Object.keys(manifest.dependencies ?? {})) if (!name.startsWith('@switchboard/')) runtime.add(name);
    }
    const documented = documentedPackages();
    expect([...runtime].filter((name) => !documented.has(name)).sort()).toEqual([]);
  });
});

describe("the README's links", () => {
  it('point at files inside the repository that exist (a fresh clone has nothing beside it)', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const targets = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^(https?:|mailto:|#)/.test(target));
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) {
      const path = resolve(REPO_ROOT, target.split('#')[0]!);
      expect(relative(REPO_ROOT, path).startsWith('..'), target).toBe(false);
      expect(existsSync(path), target).toBe(true);
    }
    expect(readme).not.toMatch(/\.\.\/shared\//);
  });
});
