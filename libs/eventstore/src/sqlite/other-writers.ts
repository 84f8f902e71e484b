import { watch } from 'node:fs';
import type { FSWatcher } from 'node:fs';
import path from 'node:path';
import type { DatabaseSync, StatementSync } from 'node:sqlite';

/**
 * Tells when another connection (another process: the CLI, a second replica on the same file)
 * committed to a SQLite file, without polling: its commits write the `-wal` file, which the
 * kernel reports (inotify on Linux); `PRAGMA data_version` then says whether the change was
 * someone else's (it does not move for this connection's own commits, which wake this process's
 * subscriptions directly). Where the file system reports nothing (some network mounts), the
 * subscriptions' slow poll still finds the events.
 */
export class OtherWriters {
  readonly #watcher: FSWatcher | undefined;
  readonly #dataVersion: StatementSync;
  #seen: number;
  #checking = false;
  #closed = false;

  constructor(file: string, db: DatabaseSync, onCommit: () => void) {
    this.#dataVersion = db.prepare('PRAGMA data_version');
    this.#seen = this.#version();
    const wal = `${path.basename(file)}-wal`;
    try {
      // The folder, not the file: the -wal file is created, truncated and recreated by checkpoints.
      this.#watcher = watch(path.dirname(file), { persistent: false }, (_event, name) => {
        if (name !== wal || this.#checking) return;
        // One check per burst of writes: a commit is several writes to the -wal file.
        this.#checking = true;
        setImmediate(() => {
          this.#checking = false;
          if (!db.isOpen) return;
          const version = this.#version();
          if (version === this.#seen) return;
          this.#seen = version;
          onCommit();
        });
      });
      // A folder removed under us (a test's temp dir): the poll is all that is left.
      this.#watcher.on('error', () => this.close());
    } catch {
      this.#watcher = undefined;
    }
  }

  /** Whether the file system reports the file's writes (a watcher is set and has not failed). */
  get watching(): boolean {
    return this.#watcher !== undefined && !this.#closed;
  }

  close(): void {
    this.#closed = true;
    this.#watcher?.close();
  }

  #version(): number {
    return Number((this.#dataVersion.get() as { data_version: number | bigint }).data_version);
  }
}
