import { randomBytes } from 'node:crypto';
import { SecretCipher, increasingUlid } from '@switchboard/service-kit';
import { openContent, sealContent } from './content-cipher.js';
import { dataKeyAssociatedData } from './data-key-store.js';
import type { DataKeyStore, StoredDataKey } from './data-key-store.js';

/** A sealed content's account and key: what must be loaded before it is opened. */
export interface KeyRef {
  accountId: string;
  keyId: string;
}

/** What is known of an account's keys: its live key (opened), and the newest key id known of. */
interface AccountKeys {
  live: { keyId: string; cipher: SecretCipher } | null;
  /** Ids up to this one are decided: the live key's, or destroyed. */
  newestKnown: string | null;
}

/** Accounts whose keys stay in memory (least recently used out). */
const CACHED_ACCOUNTS = 10_000;

/** A content whose key was destroyed: what `open` answers instead of the content. */
export const ERASED = Symbol('erased');

/**
 * The accounts' data keys in memory: each unwrapped once (from the store, with the service's
 * secret key) and kept, so sealing a send's content costs one AES-GCM pass and no I/O. The async
 * calls load what the synchronous `seal` and `open` need: `sealingKey` an account's live key
 * (minted on first use), `prepare` the keys of contents about to be opened. Key ids are ULIDs and
 * an account gets a new key only once its last one is gone, so an id older than one known is a
 * destroyed key, without asking the store.
 */
export class ContentKeys {
  readonly #accounts = new Map<string, AccountKeys>();
  readonly #loading = new Map<string, Promise<AccountKeys>>();
  /** Destructions under way, one after the other per account (the eraser and the fact's follower meet). */
  readonly #destroying = new Map<string, Promise<number>>();
  readonly #master: SecretCipher;

  constructor(
    private readonly store: DataKeyStore,
    /** SWITCHBOARD_SECRET_KEY (32 bytes): wraps every data key. */
    secretKey: Buffer,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.#master = new SecretCipher(secretKey);
  }

  /** Loads (or mints) the account's live key, so `seal` can use it. */
  async sealingKey(accountId: string): Promise<void> {
    const known = this.#cached(accountId) ?? (await this.#load(accountId));
    if (known.live !== null) return;
    let minted = await this.#mint(accountId);
    // The store still held a key an erasure named (its destruction under way elsewhere): finish it, mint anew.
    if (known.newestKnown !== null && minted.keyId <= known.newestKnown) {
      await this.store.destroy(accountId, minted.keyId);
      minted = await this.#mint(accountId);
    }
    this.#remember(accountId, this.#opened(minted));
  }

  /** Loads the keys these contents were sealed with (or learns that they were destroyed). */
  async prepare(refs: Iterable<KeyRef>): Promise<void> {
    const stale = new Set<string>();
    for (const { accountId, keyId } of refs) {
      const known = this.#cached(accountId);
      if (known === undefined || known.newestKnown === null || keyId > known.newestKnown) stale.add(accountId);
    }
    await Promise.all([...stale].map((accountId) => this.#load(accountId)));
    // A key the store does not have (any more) was destroyed: remember it is decided.
    for (const { accountId, keyId } of refs) {
      const known = this.#cached(accountId);
      if (known && (known.newestKnown === null || keyId > known.newestKnown)) known.newestKnown = keyId;
    }
  }

  /** Seals a content with the account's live key; `sealingKey` must have loaded it. */
  seal<C extends { type: string }>(accountId: string, messageId: string, content: C): { type: C['type']; keyId: string; sealed: string } {
    const live = this.#cached(accountId)?.live;
    if (!live) throw new Error(`the data key of ${accountId} is not loaded: await sealingKey() first`);
    return sealContent(live.cipher, { accountId, messageId, keyId: live.keyId }, content);
  }

  /** The sealed content as it was sealed, or ERASED when its key was destroyed; `prepare` must have run. */
  open(accountId: string, messageId: string, sealed: { keyId: string; sealed: string }): unknown {
    const known = this.#cached(accountId);
    if (known?.live?.keyId === sealed.keyId) return openContent(known.live.cipher, { accountId, messageId, keyId: sealed.keyId }, sealed.sealed);
    if (known && known.newestKnown !== null && sealed.keyId <= known.newestKnown) return ERASED;
    throw new Error(`the data key ${sealed.keyId} of ${accountId} is not loaded: await prepare() first`);
  }

  /** The account's live key id in the store (undefined: none). */
  async liveKeyId(accountId: string): Promise<string | undefined> {
    return (await this.store.current(accountId))?.keyId;
  }

  /**
   * An erasure named these keys (MessageContentsErased, recorded here or by another process): they
   * are never used again here, and destroyed in the store (by whichever process gets there first;
   * a key already gone counts nothing). Resolves with how many this call destroyed.
   */
  async erased(accountId: string, keyIds: readonly string[]): Promise<number> {
    const known = this.#cached(accountId);
    const newest = [known?.newestKnown ?? null, ...keyIds].reduce<string | null>((a, b) => (a === null || (b !== null && b > a) ? b : a), null);
    const live = known?.live && !keyIds.includes(known.live.keyId) ? known.live : null;
    this.#remember(accountId, { live, newestKnown: newest });
    const before = this.#destroying.get(accountId) ?? Promise.resolve(0);
    const destroying = before.catch(() => 0).then(async () => {
      let destroyed = 0;
      for (const keyId of keyIds) if (await this.store.destroy(accountId, keyId)) destroyed += 1;
      return destroyed;
    });
    this.#destroying.set(accountId, destroying);
    try {
      return await destroying;
    } finally {
      if (this.#destroying.get(accountId) === destroying) this.#destroying.delete(accountId);
    }
  }

  #cached(accountId: string): AccountKeys | undefined {
    return this.#accounts.get(accountId);
  }

  /** Reads the account's live key from the store; concurrent loads of one account share one read. */
  #load(accountId: string): Promise<AccountKeys> {
    let loading = this.#loading.get(accountId);
    if (loading === undefined) {
      loading = this.store
        .current(accountId)
        .then((stored) => {
          // What was learnt meanwhile wins: a key an erasure named is dead even while the store still holds it.
          const previous = this.#cached(accountId);
          const erased = stored !== undefined && previous?.newestKnown != null && stored.keyId <= previous.newestKnown && previous.live?.keyId !== stored.keyId;
          const known = stored && !erased ? this.#opened(stored) : { live: null, newestKnown: previous?.newestKnown ?? null };
          this.#remember(accountId, known);
          return known;
        })
        .finally(() => this.#loading.delete(accountId));
      this.#loading.set(accountId, loading);
    }
    return loading;
  }

  async #mint(accountId: string): Promise<StoredDataKey> {
    // Increasing within this process: an erasure followed by a new key in the same millisecond still orders them.
    const keyId = `dk_${increasingUlid()}`;
    const key = randomBytes(32);
    const wrapped = this.#master.seal(key, dataKeyAssociatedData(accountId, keyId));
    key.fill(0);
    return this.store.create({ accountId, keyId, wrapped, createdAt: this.now().toISOString() });
  }

  #opened(stored: StoredDataKey): AccountKeys {
    const key = this.#master.open(stored.wrapped, dataKeyAssociatedData(stored.accountId, stored.keyId));
    const cipher = new SecretCipher(key);
    key.fill(0);
    return { live: { keyId: stored.keyId, cipher }, newestKnown: stored.keyId };
  }

  #remember(accountId: string, known: AccountKeys): void {
    this.#accounts.delete(accountId);
    this.#accounts.set(accountId, known);
    if (this.#accounts.size > CACHED_ACCOUNTS) this.#accounts.delete(this.#accounts.keys().next().value!);
  }
}
