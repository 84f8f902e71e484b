import { readFileSync } from 'node:fs';
import pg from 'pg';

/** CPU seconds spent per process id, as read at one moment. */
export type CpuByPid = ReadonlyMap<number, number>;

// /proc/<pid>/stat counts in clock ticks; Linux has used 100 per second for every common build.
const ticksPerSecond = 100;

/** utime + stime of `/proc/<pid>/stat` in seconds (the fields after the `(comm)`, which may hold spaces). */
export function cpuSecondsFromStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/**
 * CPU spent between two readings: the difference per process, a process first seen in `after`
 * counting whole (it started in between). A process that ended in between is lost, so this errs low.
 */
export function cpuSecondsBetween(before: CpuByPid, after: CpuByPid): number {
  let seconds = 0;
  for (const [pid, now] of after) seconds += now - (before.get(pid) ?? 0);
  return seconds;
}

/** This Node process's CPU (user + system) so far, in seconds. */
export function processCpuSeconds(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
}

/**
 * The PostgreSQL backends serving one application's connections (found by `application_name`,
 * their `pg_backend_pid()`), with the CPU each has used, from /proc: the server must run on this
 * machine. Background processes (WAL writer, checkpointer) are not counted.
 */
export class BackendCpu {
  readonly #monitor: pg.Client;

  private constructor(monitor: pg.Client, private readonly applicationName: string) {
    this.#monitor = monitor;
  }

  static async connect(url: string, applicationName: string): Promise<BackendCpu> {
    const monitor = new pg.Client({ connectionString: url });
    await monitor.connect();
    return new BackendCpu(monitor, applicationName);
  }

  async read(): Promise<CpuByPid> {
    const { rows } = await this.#monitor.query<{ pid: number }>(
      'SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND datname = current_database()', [this.applicationName],
    );
    const seconds = new Map<number, number>();
    for (const { pid } of rows) {
      try {
        seconds.set(pid, cpuSecondsFromStat(readFileSync(`/proc/${pid}/stat`, 'utf8')));
      } catch {
        // Ended between the query and the read: nothing left to count.
      }
    }
    return seconds;
  }

  close(): Promise<void> {
    return this.#monitor.end();
  }
}
