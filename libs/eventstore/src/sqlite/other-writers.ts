import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import path from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';

/** Looks again after a report, ms after the previous look: a commit made visible this late is still seen at once. */
const RECHECK_MS = [5, 25, 100, 400];

/**
 * Tells when another connection (another process: the CLI, a second replica on the same file)
 * committed to a SQLite file, without polling: its commits write the `-wal` file, which the
 * kernel reports (inotify on Linux); `PRAGMA data_version` then says whether the change was
 * someone else's (it does not move for this connection's own commits, which wake this process's
 * subscriptions directly). Where the file system reports nothing (some network mounts), the
 * subscriptions' slow poll still finds the events.
 *
 * A commit's frames reach the `-wal` file before it becomes visible (the writer then updates the
 * WAL index in shared memory, which the kernel does not report): a writer descheduled in between
 * shows no new version at the first look. So each report is looked at again a few times over half
 * a second (`RECHECK_MS`) before the slow poll is all that is left.
 */
export class OtherWriters {
  readonly #watcher: FSWatcher | undefined;
  readonly #dataVersion: StatementSync;
  readonly #db: DatabaseSync;
  readonly #onCommit: () => void;
  #seen: number;
  /** The look of the writes reported in this turn (one per burst). */
  #immediate: NodeJS.Immediate | undefined;
  /** The next look of the current round of `RECHECK_MS`; reports meanwhile get a round after it. */
  #recheck: NodeJS.Timeout | undefined;
  #reportedDuringRecheck = false;
  #closed = false;

  constructor(file: string, db: DatabaseSync, onCommit: () => void) {
    this.#db = db;
    this.#onCommit = onCommit;
    this.#dataVersion = db.prepare('PRAGMA data_version');
    this.#seen = this.#version();
    const wal = `${path.basename(file)}-wal`;
    try {
      // The folder, not the file: the -wal file is created, truncated and recreated by checkpoints.
      this.#watcher = watch(path.dirname(file), { persistent: false }, (_event, name) => {
        if (name === wal) this.#reported();
      });
      // A folder removed under us (a test's temp dir): the poll is all that is left.
      this.#watcher.on('error', () => this.close());
    } catch {
      this.#watcher = undefined;
    }
  }

  /**
   * A write to the -wal file: a look at once, and a round of rechecks. The process's own commits are
   * reported too (and never move the version), so a burst of them shares one round rather than
   * starting one each: at most one timer is pending, a few looks a second under steady writes.
   */
  #reported(): void {
    this.#immediate ??= setImmediate(() => {
      this.#immediate = undefined;
      this.#look();
    });
    if (this.#recheck === undefined) this.#recheckFrom(0);
    else this.#reportedDuringRecheck = true;
  }

  #recheckFrom(step: number): void {
    const delay = RECHECK_MS[step];
    if (delay === undefined) {
      this.#recheck = undefined;
      if (!this.#reportedDuringRecheck) return;
      this.#reportedDuringRecheck = false;
      this.#recheckFrom(0);
      return;
    }
    this.#recheck = setTimeout(() => {
      this.#look();
      this.#recheckFrom(step + 1);
    }, delay);
    this.#recheck.unref();
  }

  #look(): void {
    if (this.#closed || !this.#db.isOpen) return;
    const version = this.#version();
    if (version === this.#seen) return;
    this.#seen = version;
    this.#onCommit();
  }

  /** Whether the file system reports the file's writes (a watcher is set and has not failed). */
  get watching(): boolean {
    return this.#watcher !== undefined && !this.#closed;
  }

  close(): void {
    this.#closed = true;
    clearImmediate(this.#immediate);
    clearTimeout(this.#recheck);
    this.#watcher?.close();
  }

  #version(): number {
    return Number((this.#dataVersion.get() as { data_version: number | bigint }).data_version);
  }
}
