import { setTimeout as sleep } from 'node:timers/promises';
import { BufferJSON, proto } from '@whiskeysockets/baileys';
import type { AuthenticationCreds, SignalDataSet, SignalDataTypeMap, SignalKeyStore } from '@whiskeysockets/baileys';
import { SecretDecryptionError } from '@switchboard/service-kit';
import { BoundedMap } from '../bounded-map.js';
import { settledWithin } from '../settled-within.js';
import { CREDS_KIND, type CredentialsRow, type CredentialsStore } from './credentials-store.js';
import { isNeverGeneratedPreKey, newDeviceCreds } from './first-pre-key-batch.js';
import { pruneClosedSessions } from './prune-closed-sessions.js';

type KeyType = keyof SignalDataTypeMap;

/** What one socket may still do: write (keys, creds saves), and have its queued creds saves written. */
interface SocketWriter {
  writes: boolean;
  saves: boolean;
}
type KeysOf<T extends KeyType> = { [id: string]: SignalDataTypeMap[T] };

/** How many Signal keys one session keeps decrypted in memory; the rest stay in the store. */
export const DEFAULT_KEY_CACHE_ENTRIES = 64;
/** Cached marker for "no such key in the store". */
const ABSENT = Symbol('absent');
/** Neither cached nor being written: only the store knows. */
const UNKNOWN = Symbol('unknown');
/** Reads of the creds when the store does not answer (a NATS blip); a wrong key is not retried. */
const CREDS_READ_ATTEMPTS = 3;
/** Writes of one creds state before the next `creds.update` has to bring it again. */
const CREDS_SAVE_ATTEMPTS = 5;
const RETRY_BASE_MS = 250;

export interface SessionCredentialsOptions {
  cacheEntries?: number;
  /** Told of each failed creds save; it is retried, and the stored creds lag behind meanwhile. */
  onSaveFailed?: (error: unknown) => void;
}

/**
 * One session's view of the credentials store: Baileys' `creds` and a `SignalKeyStore`
 * (get/set) with a small LRU in front, values serialized with Baileys' `BufferJSON`. Keys found in
 * the cache are answered at once, without a promise. Nothing here logs values.
 */
export class SessionCredentials {
  readonly keys: SignalKeyStore;
  readonly #cache: BoundedMap<string, unknown>;
  /** Key values written and not yet acknowledged: read back from here, whatever the store's ordering. */
  readonly #unacknowledged = new Map<string, { value: unknown }>();
  /** Bumped by `wipe()`: writers handed out before it go quiet. */
  #generation = 0;
  /** Counts key writes: a store read that overlapped one may predate it, so it is not cached. */
  #writes = 0;
  #pendingCreds: { creds: AuthenticationCreds; current: () => boolean } | undefined;
  #savingCreds = false;
  /** The creds saves under way (resolved when none is). */
  #credsSaved: Promise<void> = Promise.resolve();
  /** The sockets' writers handed out since the last `fence()`. */
  readonly #writers = new Set<SocketWriter>();

  constructor(
    readonly sessionId: string,
    private readonly store: CredentialsStore,
    private readonly options: SessionCredentialsOptions = {},
  ) {
    this.#cache = new BoundedMap(options.cacheEntries ?? DEFAULT_KEY_CACHE_ENTRIES);
    this.keys = { get: (type, ids) => this.#getKeys(type, ids), set: (data) => this.#setKeys(data) };
  }

  /** Stored creds, or undefined when this session never paired (or was wiped). */
  async loadCreds(): Promise<AuthenticationCreds | undefined> {
    const bytes = await this.#readCreds();
    return bytes ? (JSON.parse(bytes.toString('utf8'), BufferJSON.reviver) as AuthenticationCreds) : undefined;
  }

  async loadOrInitCreds(): Promise<AuthenticationCreds> {
    return (await this.loadCreds()) ?? newDeviceCreds();
  }

  saveCreds(creds: AuthenticationCreds): Promise<void> {
    return this.store.write(this.sessionId, [{ kind: CREDS_KIND, keyId: '', value: serialize(creds) }]);
  }

  /** A row of the driver's own (not Baileys'), kept and sealed like the keys, removed by `wipe()`; not cached. */
  readRecord(kind: string, keyId: string): Promise<Buffer | undefined> {
    return this.store.read(this.sessionId, kind, keyId);
  }

  /** Writes (a null value deletes) rows of the driver's own; resolves once durable. */
  writeRecords(rows: readonly CredentialsRow[]): Promise<void> {
    return this.store.write(this.sessionId, rows);
  }

  /**
   * The driver let the session go (another replica may own it from now on). The sockets handed
   * out so far write nothing more from now on, and the creds saves they asked for before are
   * written first (waited for up to `timeoutMs`; what is still queued then is dropped), so a late
   * write of an old socket never overwrites what the next owner writes. A key write already on its
   * way to the store still lands. Nothing stored is removed; what is cached is forgotten (the next
   * socket reads the store). A socket handed out while this waits is not affected.
   */
  async fence(timeoutMs: number): Promise<void> {
    const fenced = [...this.#writers];
    this.#writers.clear();
    for (const writer of fenced) writer.writes = false;
    await settledWithin(this.#credsSaved, timeoutMs);
    for (const writer of fenced) writer.saves = false;
    this.#cache.clear();
  }

  /** Forgets everything in memory at once, then removes the stored rows (resolves once removed). */
  wipe(): Promise<void> {
    this.#generation += 1;
    this.#cache.clear();
    this.#unacknowledged.clear();
    this.#pendingCreds = undefined;
    return this.store.wipe(this.sessionId);
  }

  /**
   * Creds and keys for one socket. Its writes are dropped once the session is wiped: a socket
   * closing after a logout still commits Signal transactions and would otherwise bring rows back.
   * `saveCreds` is Baileys' `creds.update` listener: it never throws (see `#saveLatest`).
   * Pre-keys `creds` says were never generated are answered absent without asking the store.
   */
  authStateUntilWipe(creds: AuthenticationCreds): { creds: AuthenticationCreds; keys: SignalKeyStore; saveCreds: () => void } {
    const generation = this.#generation;
    const writer: SocketWriter = { writes: true, saves: true };
    this.#writers.add(writer);
    const writes = () => generation === this.#generation && writer.writes;
    const saves = () => generation === this.#generation && writer.saves;
    const existing = (type: KeyType, ids: string[]) => (type === 'pre-key' ? ids.filter((id) => !isNeverGeneratedPreKey(creds, id)) : ids);
    return {
      creds,
      keys: { get: (type, ids) => this.#getKeys(type, existing(type, ids)), set: (data) => (writes() ? this.#setKeys(data) : undefined) },
      saveCreds: () => (writes() ? this.#saveLatest(creds, saves) : undefined),
    };
  }

  async #readCreds(): Promise<Buffer | undefined> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.store.read(this.sessionId, CREDS_KIND, '');
      } catch (error) {
        // A wrong key stays wrong; a store that did not answer may answer next time.
        if (error instanceof SecretDecryptionError || attempt >= CREDS_READ_ATTEMPTS) throw error;
        await sleep(RETRY_BASE_MS * 4 ** (attempt - 1));
      }
    }
  }

  /**
   * Saves the socket's creds one write at a time, each of the latest state: Baileys mutates one
   * object and fires `creds.update` in bursts. A failed write is told and retried with a growing
   * pause; after `CREDS_SAVE_ATTEMPTS` the next update tries again.
   */
  #saveLatest(creds: AuthenticationCreds, current: () => boolean): void {
    this.#pendingCreds = { creds, current };
    if (this.#savingCreds) return;
    this.#savingCreds = true;
    this.#credsSaved = this.#drainCredsSaves().finally(() => (this.#savingCreds = false));
  }

  async #drainCredsSaves(): Promise<void> {
    let failures = 0;
    for (let next = this.#pendingCreds; next; next = this.#pendingCreds) {
      this.#pendingCreds = undefined;
      if (!next.current()) continue;
      try {
        await this.saveCreds(next.creds);
        failures = 0;
      } catch (error) {
        failures += 1;
        try {
          this.options.onSaveFailed?.(error);
        } catch {
          // A failing reporter must not stop the saves.
        }
        if (failures >= CREDS_SAVE_ATTEMPTS) return;
        this.#pendingCreds ??= next;
        await sleep(RETRY_BASE_MS * 2 ** failures, undefined, { ref: false });
      }
    }
  }

  #getKeys<T extends KeyType>(type: T, ids: string[]): KeysOf<T> | Promise<KeysOf<T>> {
    const found: KeysOf<T> = {};
    const unknown: string[] = [];
    for (const id of ids) {
      const known = this.#known(type, id);
      if (known === UNKNOWN) unknown.push(id);
      else if (known !== ABSENT) found[id] = known as SignalDataTypeMap[T];
    }
    return unknown.length === 0 ? found : this.#readKeys(type, unknown, found);
  }

  #known(type: KeyType, id: string): unknown {
    const key = cacheKey(type, id);
    const writing = this.#unacknowledged.get(key);
    if (writing) return writing.value;
    return this.#cache.get(key) ?? UNKNOWN;
  }

  async #readKeys<T extends KeyType>(type: T, ids: string[], found: KeysOf<T>): Promise<KeysOf<T>> {
    const [writes, generation] = [this.#writes, this.#generation];
    const stored = await Promise.all(ids.map((id) => this.store.read(this.sessionId, type, id)));
    const undisturbed = writes === this.#writes && generation === this.#generation;
    ids.forEach((id, index) => {
      const bytes = stored[index];
      let value: unknown = bytes ? deserializeKey(type, bytes) : ABSENT;
      // Misses are cached too: Baileys asks for a privacy token it never got on every send.
      if (undisturbed) this.#cache.set(cacheKey(type, id), value);
      else if (this.#known(type, id) !== UNKNOWN) value = this.#known(type, id);
      if (value !== ABSENT) found[id] = value as SignalDataTypeMap[T];
    });
    return found;
  }

  async #setKeys(data: SignalDataSet): Promise<void> {
    const rows: (CredentialsRow & { key: string; known: unknown })[] = [];
    for (const [type, entries] of Object.entries(data) as [KeyType, Record<string, unknown>][]) {
      for (const [id, written] of Object.entries(entries ?? {})) {
        const value = type === 'session' ? pruneClosedSessions(written) : written;
        const stored = value === null || value === undefined ? null : serialize(value);
        rows.push({ kind: type, keyId: id, value: stored, key: cacheKey(type, id), known: stored === null ? ABSENT : value });
      }
    }
    this.#writes += 1;
    const pending = rows.map(({ kind, key, known }) => {
      // Pre-keys arrive in batches and are read once each, if ever: not cached.
      if (kind === 'pre-key') this.#cache.delete(key);
      else this.#cache.set(key, known);
      const entry = { value: known };
      this.#unacknowledged.set(key, entry);
      return [key, entry] as const;
    });
    try {
      await this.store.write(this.sessionId, rows.map(({ kind, keyId, value }) => ({ kind, keyId, value })));
    } catch (error) {
      // Not (all) stored: the cache must not answer what the store may not hold.
      for (const [key] of pending) this.#cache.delete(key);
      throw error;
    } finally {
      for (const [key, entry] of pending) if (this.#unacknowledged.get(key) === entry) this.#unacknowledged.delete(key);
    }
  }
}

function cacheKey(type: KeyType, id: string): string {
  return `${type}/${id}`;
}

function serialize(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value, BufferJSON.replacer), 'utf8');
}

function deserializeKey(type: KeyType, bytes: Buffer): unknown {
  const value: unknown = JSON.parse(bytes.toString('utf8'), BufferJSON.reviver);
  // Same as Baileys' own file store: app-state keys must come back as proto objects.
  return type === 'app-state-sync-key' ? proto.Message.AppStateSyncKeyData.fromObject(value as object) : value;
}
