import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import type { SwitchboardConfig } from '@switchboard/service-kit';
import { connectNats } from '../nats-kv.js';
import { KvSentLog } from './kv-sent-log.js';
import type { SentLog } from './sent-log.js';
import { SqliteSentLog } from './sqlite-sent-log.js';

/**
 * The sent log of the mode: `<dataDir>/sent-messages.sqlite` without NATS (embedded), the shared
 * KV bucket `sb_sessions_sent` when `SWITCHBOARD_NATS_URL` is set, on `connection` or, without
 * one, on a connection of its own that `close()` closes.
 */
export async function openSentLog(config: Pick<SwitchboardConfig, 'natsUrl'>, dataDir: string, connection?: NatsConnection): Promise<SentLog> {
  if (config.natsUrl === undefined) return new SqliteSentLog(join(dataDir, 'sent-messages.sqlite'));
  if (connection) return KvSentLog.open(connection);
  const own = await connectNats(config.natsUrl, 'sessions-sent-log');
  try {
    const log = await KvSentLog.open(own);
    return {
      record: (sent) => log.record(sent),
      find: (accountId, sessionId, messageId) => log.find(accountId, sessionId, messageId),
      forgetBefore: (cutoff) => log.forgetBefore(cutoff),
      close: () => log.close().finally(() => own.close()),
    };
  } catch (error) {
    await own.close();
    throw error;
  }
}
