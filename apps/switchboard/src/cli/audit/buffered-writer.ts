import { once } from 'node:events';
import type { Writable } from 'node:stream';

/** Text gathered before one write: few large writes, and memory bounded by this. */
const FLUSH_AT = 64 * 1024;

/**
 * Writes text to a stream (a file, stdout, an HTTP response) in chunks of about 64 KiB, waiting
 * for `drain` when the stream's buffer is full: memory stays flat however much is written, and a
 * slow reader slows the reading of the stores down instead of filling the heap.
 */
export class BufferedWriter {
  #pending = '';

  /** `signal`: aborted when the reader is gone (an HTTP client hung up), so no wait for `drain` outlives it. */
  constructor(private readonly out: Writable | NodeJS.WritableStream, private readonly signal?: AbortSignal) {}

  /** Adds `text`; a promise only when the chunk was written and the stream asks to wait. */
  write(text: string): Promise<void> | undefined {
    this.#pending += text;
    return this.#pending.length >= FLUSH_AT ? this.flush() : undefined;
  }

  async flush(): Promise<void> {
    if (this.#pending === '') return;
    const chunk = this.#pending;
    this.#pending = '';
    this.signal?.throwIfAborted();
    if (!this.out.write(chunk)) await once(this.out as Writable, 'drain', this.signal ? { signal: this.signal } : {});
  }
}
