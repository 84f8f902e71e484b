// Adds up the JSON reports that every project's vitest run wrote, and prints one closing line
// ("tests: N passed, N failed, N skipped") so CI can read the totals across the whole workspace.
// Failed tests are listed first, each with the start of its first failure: CI keeps only the end
// of its output, where the per-project logs that name them have scrolled away.
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join } from 'node:path';

const roots = ['contracts', 'libs', 'services', 'tools', 'apps'];
const reports = [];
for (const root of roots) {
  if (!existsSync(root)) continue;
  const dirs = root === 'contracts' ? ['contracts'] : readdirSync(root).map((d) => join(root, d));
  for (const dir of dirs) {
    const file = join(dir, 'test-results', 'vitest.json');
    if (existsSync(file)) reports.push(JSON.parse(readFileSync(file, 'utf8')));
  }
}
for (const report of reports) {
  for (const file of report.testResults ?? []) {
    for (const test of file.assertionResults ?? []) {
      if (test.status !== 'failed') continue;
      const why = (test.failureMessages?.[0] ?? '').split('\n').slice(0, 6).join('\n    ');
      console.log(`FAILED ${file.name.replace(process.cwd() + '/', '')} > ${test.fullName}\n    ${why}`);
    }
  }
  if (report.numFailedTestSuites > 0) {
    for (const file of report.testResults ?? []) {
      if (file.status === 'failed' && (file.assertionResults ?? []).length === 0) console.log(`FAILED ${file.name.replace(process.cwd() + '/', '')}: ${(file.message ?? '').split('\n')[0]}`);
    }
  }
}
const sum = (key) => reports.reduce((n, r) => n + (r[key] ?? 0), 0);
const passed = sum('numPassedTests');
const failed = sum('numFailedTests');
const skipped = sum('numPendingTests') + sum('numTodoTests');
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
