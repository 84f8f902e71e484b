import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { natsServiceConnectionOptions } from '@switchboard/bus';
import { InvalidSecretKeyError, KEY_CHECK_FILE, resolveSecretKey, SECRET_KEY_FILE, serviceDataDir } from '@switchboard/service-kit';
import { ContentKeys } from './content-keys.js';
import type { DataKeyStore } from './data-key-store.js';
import { KvDataKeyStore } from './kv-data-key-store.js';
import { SqliteDataKeyStore } from './sqlite-data-key-store.js';

/** What opening the data keys reads of `SwitchboardConfig` (which satisfies it). */
export interface ContentKeysConfig {
  dataDir: string;
  natsUrl?: string | undefined;
  secretKey?: string | undefined;
}

export interface OpenedContentKeys {
  keys: ContentKeys;
  /** Closes the key store (and the NATS connection opened for it). */
  close(): Promise<void>;
}

/** `<dataDir>/messaging/data-keys.sqlite`: the embedded mode's data keys. */
export const dataKeysFile = (dataDir: string): string => join(serviceDataDir('messaging', { dataDir }), 'data-keys.sqlite');

/**
 * The messaging service's data keys as the mode keeps them: the SQLite file `data-keys.sqlite` of
 * its data dir (embedded), or the JetStream KV bucket `sb_messaging_data_keys` every replica reads
 * (with SWITCHBOARD_NATS_URL), each key wrapped with SWITCHBOARD_SECRET_KEY (generated into the
 * data dir on a first embedded start, required in the distributed mode). `ifExists`: for readers
 * (the audit CLI), undefined instead of creating a store that is not there.
 */
export async function openContentKeys(config: ContentKeysConfig, options: { ifExists?: boolean } = {}): Promise<OpenedContentKeys | undefined> {
  const embedded = config.natsUrl === undefined;
  if (options.ifExists && embedded && !existsSync(dataKeysFile(config.dataDir))) return undefined;
  const dir = serviceDataDir('messaging', config);
  // A tool on a data dir the server runs with a configured key must not mint a key file of its own.
  if (embedded && !config.secretKey && !existsSync(join(dir, SECRET_KEY_FILE)) && existsSync(join(dir, KEY_CHECK_FILE))) {
    throw new InvalidSecretKeyError(`not set, and ${dir} holds data keys wrapped with a configured one: use the server's SWITCHBOARD_SECRET_KEY`);
  }
  const secretKey = resolveSecretKey({ configured: config.secretKey, dataDir: dir, embedded });
  let connection: NatsConnection | undefined;
  let store: DataKeyStore;
  if (embedded) store = new SqliteDataKeyStore(dataKeysFile(config.dataDir));
  else {
    // A connection of its own that reconnects for as long as the process lives, as the sessions' KV buckets have.
    connection = await connect(natsServiceConnectionOptions(config.natsUrl!, 'messaging-data-keys'));
    try {
      store = await KvDataKeyStore.open(connection);
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw error;
    }
  }
  return {
    keys: new ContentKeys(store, secretKey),
    close: async () => {
      await store.close();
      await connection?.close().catch(() => undefined);
    },
  };
}
