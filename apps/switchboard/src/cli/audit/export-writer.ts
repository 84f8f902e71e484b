import { createHash } from 'node:crypto';
import type { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { ApiError } from '@switchboard/contracts';
import type { AuditExportFormat } from '@switchboard/contracts';
import type { AuditExporter } from '@switchboard/gateway';
import type { SwitchboardConfig } from '@switchboard/service-kit';
import { AUDITED_SERVICES } from '../args.js';
import type { ProgressBar } from '../progress.js';
import { BufferedWriter } from './buffered-writer.js';
import { withAuditedStores } from './audited-stores.js';
import { CSV_COLUMNS, CSV_MANIFEST_ROW, ManifestBuilder, csvEventRow, exportedEvent } from './export-format.js';
import type { ExportManifest, ExportedEvent } from './export-format.js';
import { inWindow } from './fact-query.js';
import type { TimeWindow } from './fact-query.js';
import { NothingRecordedError, ScanProgress, factSources } from './fact-sources.js';
import { mergedFacts } from './merged-facts.js';

export interface ExportRequest {
  accountId: string;
  window: TimeWindow;
  format: AuditExportFormat;
}

export interface ExportResult {
  /** The manifest without its heads (one per stream: the file has them). */
  manifest: Omit<ExportManifest, 'heads'>;
  /** SHA-256 of the manifest as written: kept apart from the file, it pins the whole export. */
  manifestSha256: string;
  /** Events read from the stores to find the account's. */
  scanned: number;
  seconds: number;
}

/** CSV rows stringified together: one call per batch, not per row. */
const CSV_BATCH = 500;

/**
 * Writes an account's export: every event of the account in the stores' log order (stores merged
 * by time), one JSON line or CSV row each, then the manifest (a `{"manifest": …}` line, or a last
 * CSV row whose `record` is `manifest`). `begin` is called once the account is known to exist and
 * returns where to write (a file, an HTTP response): an unknown account throws before anything is
 * written. Streaming: one page per store and 64 KiB of output in memory, plus one manifest entry
 * per stream exported.
 */
export async function writeAccountExport(
  config: SwitchboardConfig,
  request: ExportRequest,
  begin: () => Writable | NodeJS.WritableStream,
  options: { progress?: ProgressBar | undefined; signal?: AbortSignal | undefined } = {},
): Promise<ExportResult> {
  const started = performance.now();
  const progress = new ScanProgress(options.progress);
  return withAuditedStores(config, AUDITED_SERVICES, async (stores) => {
    const sources = await factSources(stores, { by: 'account', accountId: request.accountId }, progress);
    const writer = new BufferedWriter(begin(), options.signal);
    const rows = request.format === 'csv' ? new CsvRows(writer) : new JsonLines(writer);
    const manifest = new ManifestBuilder();
    for await (const batch of mergedFacts(sources)) {
      for (const fact of batch) {
        if (!inWindow(request.window, fact.event.recordedAt)) continue;
        const event = exportedEvent(fact);
        manifest.add(event);
        const wait = rows.add(event);
        if (wait) await wait;
      }
    }
    progress.end();
    const scope = { accountId: request.accountId, ...request.window, exportedAt: new Date() };
    const hash = createHash('sha256');
    await rows.startManifest();
    for (const piece of manifest.json(scope)) {
      hash.update(piece);
      await rows.manifestPiece(piece);
    }
    await rows.endManifest();
    await writer.flush();
    return { manifest: manifest.summary(scope), manifestSha256: hash.digest('hex'), scanned: progress.events, seconds: (performance.now() - started) / 1000 };
  });
}

/**
 * GET /v1/admin/audit/export where the stores can be opened (the embedded app): the same export,
 * into the HTTP response. An account no store knows answers 404 ACCOUNT_NOT_FOUND.
 */
export function auditExporter(config: SwitchboardConfig): AuditExporter {
  return async ({ accountId, from, to, format }, begin, signal) => {
    try {
      await writeAccountExport(config, { accountId, window: { from, to }, format }, begin, { signal });
    } catch (error) {
      // Not the store's path the CLI names: a client is told only that the account has no record.
      throw error instanceof NothingRecordedError ? new ApiError('ACCOUNT_NOT_FOUND', `No account ${accountId} is recorded in the event stores.`) : error;
    }
  };
}

/** `{…event…}\n` per event, then `{"manifest": …}\n`, the manifest written as its pieces come. */
class JsonLines {
  constructor(private readonly writer: BufferedWriter) {}

  add(event: ExportedEvent): Promise<void> | undefined {
    return this.writer.write(`${JSON.stringify(event)}\n`);
  }

  async startManifest(): Promise<void> {
    await this.writer.write('{"manifest":');
  }

  async manifestPiece(json: string): Promise<void> {
    await this.writer.write(json);
  }

  async endManifest(): Promise<void> {
    await this.writer.write('}\n');
  }
}

/** The header row, rows in batches (RFC 4180 quoting by csv-stringify), then the manifest row in pieces. */
class CsvRows {
  #batch: string[][] = [];

  constructor(private readonly writer: BufferedWriter) {
    void this.writer.write(stringify([[...CSV_COLUMNS]]));
  }

  add(event: ExportedEvent): Promise<void> | undefined {
    this.#batch.push(csvEventRow(event));
    return this.#batch.length >= CSV_BATCH ? this.#flush() : undefined;
  }

  async startManifest(): Promise<void> {
    await this.#flush();
    await this.writer.write(CSV_MANIFEST_ROW.start);
  }

  async manifestPiece(json: string): Promise<void> {
    await this.writer.write(CSV_MANIFEST_ROW.piece(json));
  }

  async endManifest(): Promise<void> {
    await this.writer.write(CSV_MANIFEST_ROW.end);
  }

  async #flush(): Promise<void> {
    if (this.#batch.length === 0) return;
    const batch = this.#batch;
    this.#batch = [];
    await this.writer.write(stringify(batch));
  }
}
