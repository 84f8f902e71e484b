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
import { randomUUID } from 'node:crypto';
import { closeSync, createWriteStream, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { finished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { SqliteEventStore } from '@switchboard/eventstore';
import type { NewEvent } from '@switchboard/eventstore';
import { loadConfig } from '@switchboard/service-kit';
import { verifyExportFile } from '../src/cli/audit/export-verification.js';
import { writeAccountExport } from '../src/cli/audit/export-writer.js';

const EVENTS = Number(process.env['BENCH_AUDIT_EVENTS'] ?? 200_000);
const ACCOUNT = 'acc_01JD8Z5W3X4Y5Z6A7B8C9D0E1F';
const LIFE = ['MessageAccepted', 'MessageSent', 'MessageDelivered', 'MessageRead'] as const;
const IN_FLIGHT = 64;
const SELF = fileURLToPath(import.meta.url);

/** The `n`-th event of message `m`'s life, about the size the messaging service stores. */
function messageEvent(m: number, n: number): NewEvent {
  const messageId = `msg_01JD${String(m).padStart(22, '0')}`;
  const at = new Date(Date.UTC(2026, 10, 21, 12, 0, 0, m * 10 + n)).toISOString();
  const data = n === 0
    ? { messageId, accountId: ACCOUNT, sessionId: 'ses_01JD8Z5W3X4Y5Z6A7B8C9D0E1G', to: '15551234567', content: { type: 'text', text: `Your order #${m} has shipped and arrives tomorrow.` }, quotedMessageId: null, idempotencyKeyHash: null, usageDay: '2026-11-21', acceptedAt: at }
    : { messageId, [`${LIFE[n]!.slice(7).toLowerCase()}At`]: at, ...(n === 1 ? { networkMessageId: `3EB0${String(m).padStart(16, '0')}` } : {}) };
  const correlationId = randomUUID();
  return { type: LIFE[n]!, data, metadata: { accountId: ACCOUNT, correlationId, causationId: correlationId, occurredAt: at, schemaVersion: n === 0 ? 2 : 1 } };
}

async function fillStores(dataDir: string): Promise<void> {
  const quota = new SqliteEventStore(join(dataDir, 'quota', 'events.sqlite'));
  await quota.append(`account-${ACCOUNT}`, [{ type: 'AccountOpened', data: { accountId: ACCOUNT, name: null, plan: 'enterprise', openedAt: new Date().toISOString() }, metadata: { accountId: ACCOUNT } }], { expectedRevision: 'no_stream' });
  await quota.close();
  const store = new SqliteEventStore(join(dataDir, 'messaging', 'events.sqlite'));
  let next = 0;
  const streams = Math.ceil(EVENTS / LIFE.length);
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < streams) {
      const m = next++;
      await store.append(`message-msg_${m}`, LIFE.map((_, n) => messageEvent(m, n)), { expectedRevision: 'no_stream' });
    }
  }));
  await store.close();
}

async function timed<T>(work: () => Promise<T>) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = await work();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { result, seconds, cpuSeconds: (used.user + used.system) / 1e6 };
}

/** One measurement in this (child) process: rows, rows/s, CPU per row, MB/s written or read, peak RSS. */
async function child(what: string, dataDir: string): Promise<void> {
  const config = loadConfig({ SWITCHBOARD_DATA_DIR: dataDir });
  const file = join(dataDir, `export.${what === 'csv' ? 'csv' : 'jsonl'}`);
  const run = await timed(async (): Promise<number> => {
    switch (what) {
      case 'scan': {
        const store = new SqliteEventStore(join(dataDir, 'messaging', 'events.sqlite'));
        let events = 0;
        let page = await store.readAll({ maxCount: 1_000 });
        while (page.length > 0) {
          events += page.length;
          const last = page.at(-1)!.position;
          page = (await store.readAll({ fromPosition: last, maxCount: 1_001 })).filter((e) => e.position > last);
        }
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
