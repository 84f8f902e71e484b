import { createWriteStream, openSync } from 'node:fs';
import type { WriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { PRIVATE_FILE_MODE } from '@switchboard/eventstore';
import type { SwitchboardConfig } from '@switchboard/service-kit';
import type { AuditCommand } from '../args.js';
import { AUDITED_SERVICES } from '../args.js';
import { count, fields } from '../format.js';
import { ProgressBar } from '../progress.js';
import type { CliOutput, PrintedOutput } from '../run.js';
import { verifyExportFile } from './export-verification.js';
import { writeAccountExport } from './export-writer.js';
import type { ExportResult } from './export-writer.js';
import { printHistory } from './history-command.js';
import { fileVerifyOutput, verifyOutput } from './verify-output.js';
import { verifyStores } from './verify-stores.js';

/** `switchboard audit …`: read the services' event stores directly, in either mode. */
export async function runAuditCommand(command: AuditCommand, config: SwitchboardConfig, json: boolean): Promise<CliOutput | PrintedOutput> {
  switch (command.kind) {
    case 'audit verify': {
      if (command.file !== undefined) return fileVerifyOutput(await verifyExportFile(command.file));
      const services = command.service ? [command.service] : AUDITED_SERVICES;
      const results = await verifyStores(config, services, command.stream);
      if (command.stream !== undefined && results.every((r) => r.events === 0)) {
        throw new Error(`stream "${command.stream}" has no events in the ${services.join(', ')} store${services.length === 1 ? '' : 's'}`);
      }
      return verifyOutput(results);
    }
    case 'audit history':
      await printHistory(config, command.query, command.window, json, process.stdout);
      return { printed: true, exitCode: 0 };
    case 'audit export':
      return exportOutput(command.out, command.format, await exportToFile(config, command));
  }
}

/**
 * Writes the export to `out`, owner-only (it holds message contents), created only once the account
 * is known; a write failure (a full disk) stops the export, and a failed export leaves no file behind.
 */
async function exportToFile(config: SwitchboardConfig, command: Extract<AuditCommand, { kind: 'audit export' }>): Promise<ExportResult> {
  let file: WriteStream | undefined;
  const failed = new AbortController();
  const begin = () => {
    // Opened here, synchronously: a folder that does not exist or a file not writable fails the command at once.
    file = createWriteStream('', { fd: openOut(command.out) });
    file.on('error', (error) => failed.abort(error));
    return file;
  };
  try {
    const result = await writeAccountExport(config, command, begin, { progress: new ProgressBar('export', 'events'), signal: failed.signal });
    file?.end();
    if (file) await finished(file);
    return result;
  } catch (error) {
    if (file) {
      file.destroy();
      await rm(command.out, { force: true });
    }
    throw failed.signal.aborted ? failed.signal.reason : error;
  }
}

function openOut(path: string): number {
  try {
    return openSync(path, 'w', PRIVATE_FILE_MODE);
  } catch (error) {
    throw new Error(`--out ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function exportOutput(out: string, format: string, { manifest, manifestSha256, scanned, seconds }: ExportResult): CliOutput {
  const rate = seconds > 0 ? Math.round(manifest.events / seconds) : 0;
  const positions = manifest.stores.map((s) => `${s.service} ${s.firstPosition}..${s.lastPosition}`).join(', ') || '-';
  const text = fields([
    ['file', `${out} (${format})`],
    ['account', manifest.accountId],
    ['events', `${count(manifest.events)} in ${count(manifest.streams)} streams (${count(scanned)} read, ${count(rate)} rows/s)`],
    ['positions', positions],
    ['manifest sha256', manifestSha256],
  ]);
  const note = 'Keep the manifest SHA-256 apart from the file: with it, `switchboard audit verify --file` proves the file whole and unchanged.';
  return { text: `${text}\n${note}`, json: { file: out, manifest, manifestSha256, scanned, rowsPerSecond: rate } };
}
