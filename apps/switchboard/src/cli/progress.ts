import { count } from './format.js';

/** What a long command has done so far. */
export interface Progress {
  label: string;
  /** Items done (events, rows). */
  done: number;
  /** Share of the work done, 0..1, when the total is known. */
  fraction: number | undefined;
  seconds: number;
  unit: string;
}

const barWidth = 24;

/** `sessions  [#########---------------]  38%  120,000 events  104,512 events/s` */
export function progressLine({ label, done, fraction, seconds, unit }: Progress): string {
  const rate = seconds > 0 ? Math.round(done / seconds) : 0;
  const tail = `${count(done)} ${unit}  ${count(rate)} ${unit}/s`;
  if (fraction === undefined) return `${label}  ${tail}`;
  const share = Math.min(Math.max(fraction, 0), 1);
  const filled = Math.round(share * barWidth);
  return `${label}  [${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}] ${`${Math.floor(share * 100)}%`.padStart(4)}  ${tail}`;
}

/**
 * A progress line redrawn in place on a terminal's stderr (at most 10 times a second), and nothing
 * at all when stderr is a pipe or a file: what a script reads stays clean.
 */
export class ProgressBar {
  readonly #out: NodeJS.WriteStream;
  readonly #started = performance.now();
  #drawnAt = 0;
  #drawn = false;

  constructor(private readonly label: string, private readonly unit: string, out: NodeJS.WriteStream = process.stderr) {
    this.#out = out;
  }

  update(done: number, fraction: number | undefined): void {
    const now = performance.now();
    if (!this.#out.isTTY || now - this.#drawnAt < 100) return;
    this.#drawnAt = now;
    this.#drawn = true;
    const line = progressLine({ label: this.label, done, fraction, seconds: (now - this.#started) / 1000, unit: this.unit });
    this.#out.write(`\r${line.slice(0, (this.#out.columns || 80) - 1)}\x1b[K`);
  }

  /** Clears the line; the command prints its result after. */
  end(): void {
    if (this.#drawn) this.#out.write('\r\x1b[K');
  }
}
