import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONFIG_DEFAULTS, CONFIG_VARIABLES } from '../src/config.js';

/** The README's configuration table: variable → default column. */
function documented(): Map<string, string> {
  const readme = readFileSync(resolve(import.meta.dirname, '../../../README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('\n## ', readme.indexOf('## Configuration') + 1));
  const rows = [...section.matchAll(/^\| `(SWITCHBOARD_[A-Z_]+)` \| ([^|]*) \|/gm)];
  return new Map(rows.map((row) => [row[1]!, row[2]!.trim()]));
}

describe("the README's configuration table", () => {
  it('names every variable the processes read, and no other', () => {
    expect([...documented().keys()].sort()).toEqual([...CONFIG_VARIABLES].sort());
  });

  it("gives each variable's default as the schema applies it", () => {
    const table = documented();
    for (const name of CONFIG_VARIABLES) {
      const value = CONFIG_DEFAULTS[name];
      if (value === undefined) expect(table.get(name), name).toMatch(/unset|generated/);
      else expect(table.get(name), name).toContain(String(value));
    }
  });
});
