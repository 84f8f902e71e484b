/**
 * The audit export and its check (issue 16) over one large account:
 *   node dist/bench/audit-export.bench.js   (npm run bench:audit-export -w @switchboard/app)
 * BENCH_AUDIT_EVENTS events (default 200,000) of one account, in four-event message streams
 * written through SqliteEventStore as the messaging service writes them (with its account stream in
 * the quota store). Then, each in a child process of its own (so its CPU and peak RSS are its own):
 * a raw scan of the log (readAll pages, also warming the page cache), `audit export` as JSON Lines
 * and as CSV (the CLI's writeAccountExport), `audit verify --file` on the JSON Lines file, and
 * writing the same number of bytes to a file in 64 KiB chunks: what the disk takes at best.
 */
import { spawnSync } from 'node:child_process';
import { closeSync, createWriteStream, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { SqliteEventStore } from '@switchboard/eventstore';
import { loadConfig } from '@switchboard/service-kit';
import { verifyExportFile } from '../src/cli/audit/export-verification.js';
import { writeAccountExport } from '../src/cli/audit/export-writer.js';
import { BENCH_ACCOUNT as ACCOUNT, fillMessageStore, scan, timed } from './message-store.js';

const EVENTS = Number(process.env['BENCH_AUDIT_EVENTS'] ?? 200_000);
const SELF = fileURLToPath(import.meta.url);


async function fillStores(dataDir: string): Promise<void> {
  const quota = new SqliteEventStore(join(dataDir, 'quota', 'events.sqlite'));
  await quota.append(`account-${ACCOUNT}`, [{ type: 'AccountOpened', data: { accountId: ACCOUNT, name: null, plan: 'enterprise', openedAt: new Date().toISOString() }, metadata: { accountId: ACCOUNT } }], { expectedRevision: 'no_stream' });
  await quota.close();
  await fillMessageStore(join(dataDir, 'messaging', 'events.sqlite'), EVENTS);
}


/** One measurement in this (child) process: rows, rows/s, CPU per row, MB/s written or read, peak RSS. */
async function child(what: string, dataDir: string): Promise<void> {
  const config = loadConfig({ SWITCHBOARD_DATA_DIR: dataDir });
  const file = join(dataDir, `export.${what === 'csv' ? 'csv' : 'jsonl'}`);
  const run = await timed(async (): Promise<number> => {
    switch (what) {
      case 'scan': {
        const store = new SqliteEventStore(join(dataDir, 'messaging', 'events.sqlite'));
        const events = await scan(store);
        await store.close();
        return events;
      }
      case 'jsonl':
      case 'csv': {
        const out = createWriteStream(file);
        const result = await writeAccountExport(config, { accountId: ACCOUNT, window: { from: undefined, to: undefined }, format: what }, () => out);
        out.end();
        await finished(out);
        return result.manifest.events;
      }
      case 'verify': {
        const result = await verifyExportFile(join(dataDir, 'export.jsonl'));
        if (result.findings.length > 0) throw new Error(`verify found ${result.findings.length} findings`);
        return result.events;
      }
      default: {
        // The disk's pace: the JSON Lines file's size written again in 64 KiB chunks (no fsync, as the export).
        const bytes = statSync(join(dataDir, 'export.jsonl')).size;
        const fd = openSync(join(dataDir, 'raw-write.bin'), 'w');
        const chunk = Buffer.alloc(64 * 1024, 120);
        for (let written = 0; written < bytes; written += chunk.length) writeSync(fd, chunk);
        closeSync(fd);
        return Math.round(bytes / 1000);
      }
    }
  });
  const bytes = what === 'scan' || what === 'disk' ? undefined : statSync(what === 'verify' ? join(dataDir, 'export.jsonl') : file).size;
  console.log(JSON.stringify({
    rows: run.result,
    rowsPerSecond: Math.round(run.result / run.seconds),
    cpuUsPerRow: +((run.cpuSeconds * 1e6) / run.result).toFixed(2),
    ...(bytes === undefined ? {} : { mbPerSecond: +(bytes / 2 ** 20 / run.seconds).toFixed(1), fileMb: Math.round(bytes / 2 ** 20) }),
    ...(what === 'disk' ? { mbPerSecond: +((run.result * 1000) / 2 ** 20 / run.seconds).toFixed(1) } : {}),
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
  }));
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sb-bench-audit-export-'));
  try {
    const filled = await timed(() => fillStores(dir));
    console.error(`${EVENTS.toLocaleString('en-US')} events of one account written in ${filled.seconds.toFixed(0)} s`);
    const rows: Record<string, unknown> = {};
    for (const [name, what] of [['raw scan (readAll pages)', 'scan'], ['audit export --format jsonl', 'jsonl'], ['audit export --format csv', 'csv'], ['audit verify --file (jsonl)', 'verify'], ['disk: same bytes, 64 KiB writes', 'disk']] as const) {
      const run = spawnSync(process.execPath, [SELF, what, dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      if (run.status !== 0) throw new Error(`${what} exited with ${run.status}`);
      rows[name] = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    }
    console.table(rows);
    console.log(JSON.stringify({ events: EVENTS, ...rows }, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] !== undefined) await child(process.argv[2], process.argv[3]!);
else await main();
