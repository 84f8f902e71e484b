import { accountContentsStream } from '@switchboard/contracts';
import type { EraseContentsReply } from '@switchboard/contracts';
import type { BlobStore } from '@switchboard/blob-store';
import type { EventStore } from '@switchboard/eventstore';
import { eventMetadata, executeCommand } from '@switchboard/service-kit';
import type { AggregateFold } from '@switchboard/service-kit';
import type { MessageFacts } from '../contents/message-facts.js';
import type { MessageFact } from '../contents/opened-content.js';
import { NEVER_ERASED, decideErasure, evolveErasure } from './decide.js';
import type { AccountContents } from './decide.js';
import { mediaOfAccount } from './media-of-account.js';

export interface ContentEraserDeps {
  store: EventStore;
  facts: MessageFacts;
  blobs: BlobStore;
  now: () => Date;
  /** After the erasure is recorded and its keys destroyed (caches to drop, a read model to wait for). */
  afterErasure?: (accountId: string, position: bigint | undefined) => Promise<void> | void;
}

/**
 * Crypto-shredding of an account's message contents, in an order a crash at any point leaves
 * repeatable: (1) the media files its messages named are deleted from the blob store (found by
 * opening the contents, so while the key still exists); (2) MessageContentsErased is recorded,
 * naming the account's live data key; (3) that key is destroyed in the key store. Every process
 * that meets the fact stops using the key and destroys it too, so a crash after (2) still ends with
 * the key gone. Stored events are never changed: ids, times, statuses and the hash chain stay.
 */
export class ContentEraser {
  private readonly fold: AggregateFold<AccountContents, MessageFact>;

  constructor(private readonly deps: ContentEraserDeps) {
    this.fold = { initial: NEVER_ERASED, evolve: evolveErasure, parse: (raw) => deps.facts.parse(raw) };
  }

  /** `correlationId`: the request that asked for it (the admin call), recorded with the fact. */
  async erase(accountId: string, correlationId?: string): Promise<EraseContentsReply> {
    const { store, facts, blobs } = this.deps;
    const live = await facts.keys.liveKeyId(accountId);
    let blobsDeleted = 0;
    for (const sha256 of await mediaOfAccount(store, facts, accountId)) if (await blobs.delete(sha256)) blobsDeleted += 1;
    const now = this.deps.now();
    const command = { type: 'EraseContents' as const, accountId, liveKeyIds: live === undefined ? [] : [live], now };
    const recorded = await executeCommand(store, accountContentsStream(accountId), this.fold, (state) => decideErasure(command, state), eventMetadata({ accountId, correlationId, now }));
    const state = recorded.state;
    if (state.status !== 'erased') throw new Error(`the erasure of ${accountId} was not recorded`);
    // Destroyed here, or a moment earlier by this process's own follower of the fact: counted once, here.
    await facts.keys.erased(accountId, state.keyIds);
    const keysDestroyed = live !== undefined && state.keyIds.includes(live) ? 1 : 0;
    await this.deps.afterErasure?.(accountId, recorded.position);
    return { accountId, erasedAt: state.erasedAt, keysDestroyed, blobsDeleted };
  }
}
