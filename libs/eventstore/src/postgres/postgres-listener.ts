import type { Client } from 'pg';
import { AppendNotifier } from '../append-notifier.js';
import { readAnnouncement } from './append-announcement.js';

/**
 * One LISTEN connection per store, opened when its first subscription reads: a NOTIFY on the
 * log's channel (sent by each append's commit, from any process) wakes the store's subscriptions
 * to the categories it names, unless the store itself sent it (`origin`: the store woke them when
 * its commit returned). It only cuts latency; while it is down the subscriptions still poll, and it
 * is re-opened by the next read after `retryMs`.
 */
export class PostgresListener {
  readonly notifier = new AppendNotifier();
  /** The connection listening, or being opened to listen. */
  #current: Client | undefined;
  #listening: Promise<void> | undefined;
  #retryAt = 0;
  #closed = false;

  constructor(
    private readonly newClient: () => Client,
    private readonly channel: string,
    private readonly retryMs: number,
    /** This store's name in its own announcements (see `AppendAnnouncement`). */
    private readonly origin: string,
  ) {}

  /**
   * Resolves once LISTEN is active, so a read that follows misses no append: one committed before
   * is in the read, one committed after is notified. Resolves too when it cannot listen (polling then).
   */
  listening(): Promise<void> {
    if (this.#closed || Date.now() < this.#retryAt) return Promise.resolve();
    this.#listening ??= this.#listen();
    return this.#listening;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#listening;
    const client = this.#current;
    this.#current = undefined;
    await client?.end().catch(() => undefined);
  }

  async #listen(): Promise<void> {
    const client = this.newClient();
    this.#current = client;
    // Without an 'error' listener a dropped connection would crash the process.
    client.on('error', () => this.#lost(client));
    client.on('end', () => this.#lost(client));
    client.on('notification', (message) => this.#announced(message.payload));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.channel}"`);
    } catch {
      this.#lost(client);
    }
  }

  /** Another store's commit: wake what its categories concern (everything when it names none). */
  #announced(payload: string | undefined): void {
    const announcement = readAnnouncement(payload);
    if (announcement?.origin === this.origin) return;
    if (announcement?.categories === undefined) return this.notifier.notify();
    for (const category of announcement.categories) this.notifier.notify(category);
  }

  /** The connection failed or ended: forget it (once), and let the next read try again after `retryMs`. */
  #lost(client: Client): void {
    if (this.#closed || this.#current !== client) return;
    this.#current = undefined;
    this.#listening = undefined;
    this.#retryAt = Date.now() + this.retryMs;
    void client.end().catch(() => undefined);
    // Whatever was announced while the connection was going down is found by reading again.
    this.notifier.notify();
  }
}
