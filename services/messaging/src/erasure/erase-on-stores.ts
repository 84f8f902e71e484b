import type { EraseContentsReply } from '@switchboard/contracts';
import { lazyBlobStore } from '@switchboard/blob-store';
import { openServiceEventStore } from '@switchboard/service-kit';
import { MessageFacts } from '../contents/message-facts.js';
import { openContentKeys } from '../contents/open-content-keys.js';
import type { ContentKeysConfig } from '../contents/open-content-keys.js';
import { ContentEraser } from './erase-contents.js';

/**
 * `sb.v1.messaging.eraseContents` without the service, on its stores (the CLI in the embedded mode):
 * the event store, the data keys and the media blobs of the data dir. A server running on the same
 * data dir meets the recorded erasure in its event store within a moment and forgets the key too.
 */
export async function eraseAccountContents(config: ContentKeysConfig & { eventStoreUrl?: string | undefined }, accountId: string): Promise<EraseContentsReply> {
  const keys = (await openContentKeys(config))!;
  const store = openServiceEventStore('messaging', config);
  const blobs = lazyBlobStore({ dataDir: config.dataDir, natsUrl: config.natsUrl, name: 'messaging-erasure' });
  try {
    return await new ContentEraser({ store, facts: new MessageFacts(keys.keys), blobs, now: () => new Date() }).erase(accountId);
  } finally {
    await blobs.close();
    await store.close();
    await keys.close();
  }
}
