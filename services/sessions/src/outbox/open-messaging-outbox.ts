import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '@switchboard/telemetry';
import { JetStreamMessagingOutbox } from './jetstream-messaging-outbox.js';
import type { JetStreamMessagingOutboxOptions } from './jetstream-messaging-outbox.js';
import type { MessagingOutbox } from './messaging-outbox.js';
import { SqliteMessagingOutbox } from './sqlite-messaging-outbox.js';

const SQLITE_FILE = 'messaging-outbox.sqlite';

/**
 * The outbox towards messaging of the mode: `<dataDir>/messaging-outbox.sqlite` without NATS
 * (embedded: this process sends what it wrote), the shared JetStream work queue
 * `SB_SESSIONS_OUTBOX` on `connection` when several replicas share the sessions (what one heard,
 * any sends, so nothing is stranded in a dead replica's data dir). The connection stays the
 * caller's: `close()` leaves it open. `jetStream` names another stream (tests).
 */
export async function openMessagingOutbox(
  dataDir: string,
  connection: NatsConnection | undefined,
  logger: Logger,
  jetStream: JetStreamMessagingOutboxOptions = {},
): Promise<MessagingOutbox> {
  if (connection === undefined) return new SqliteMessagingOutbox(join(dataDir, SQLITE_FILE));
  const outbox = await JetStreamMessagingOutbox.open(connection, logger, jetStream);
  await moveLeftovers(join(dataDir, SQLITE_FILE), outbox, logger);
  return outbox;
}

/**
 * Entries a SQLite outbox of this data dir still holds (written before the distributed mode kept
 * its outbox in JetStream) go to the shared one, each removed once published: otherwise nothing
 * would ever send them. A crash in between publishes some twice; messaging records each once.
 */
async function moveLeftovers(file: string, to: MessagingOutbox, logger: Logger): Promise<void> {
  if (!existsSync(file)) return;
  const from = new SqliteMessagingOutbox(file);
  try {
    const entries = await from.backlog();
    if (entries === 0) return;
    for await (const delivery of from.take(entries, new AbortController().signal)) {
      await to.add(delivery.entry);
      delivery.done();
    }
    logger.info({ entries }, 'receipts and received messages of the local outbox moved to the shared one');
  } finally {
    await from.close();
  }
}
