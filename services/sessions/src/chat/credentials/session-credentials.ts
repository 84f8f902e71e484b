import { BufferJSON, initAuthCreds, proto } from '@whiskeysockets/baileys';
import type { AuthenticationCreds, SignalDataSet, SignalDataTypeMap, SignalKeyStore } from '@whiskeysockets/baileys';
import { BoundedMap } from '../bounded-map.js';
import { pruneClosedSessions } from './prune-closed-sessions.js';
import { CREDS_KIND, type CredentialsRow, type SqliteCredentialsStore } from './sqlite-credentials-store.js';

type KeyType = keyof SignalDataTypeMap;

/** How many Signal keys one session keeps decrypted in memory; the rest stay in SQLite. */
export const DEFAULT_KEY_CACHE_ENTRIES = 64;
/** Cached marker for "no such key in the store". */
const ABSENT = Symbol('absent');

/**
 * One session's view of the credentials store: Baileys' `creds` and a `SignalKeyStore`
 * (get/set) with a small LRU in front, values serialized with Baileys' `BufferJSON`.
 * Nothing here logs values.
 */
export class SessionCredentials {
  readonly keys: SignalKeyStore;
  readonly #cache: BoundedMap<string, unknown>;
  /** Bumped by `wipe()`: writers handed out before it go quiet. */
  #generation = 0;

  constructor(
    readonly sessionId: string,
    private readonly store: SqliteCredentialsStore,
    cacheEntries = DEFAULT_KEY_CACHE_ENTRIES,
  ) {
    this.#cache = new BoundedMap(cacheEntries);
    this.keys = { get: (type, ids) => this.#getKeys(type, ids), set: (data) => this.#setKeys(data) };
  }

  /** Stored creds, or undefined when this session never paired (or was wiped). */
  loadCreds(): AuthenticationCreds | undefined {
    const bytes = this.store.read(this.sessionId, CREDS_KIND, '');
    return bytes ? (JSON.parse(bytes.toString('utf8'), BufferJSON.reviver) as AuthenticationCreds) : undefined;
  }

  loadOrInitCreds(): AuthenticationCreds {
    return this.loadCreds() ?? initAuthCreds();
  }

  saveCreds(creds: AuthenticationCreds): void {
    this.store.write(this.sessionId, [{ kind: CREDS_KIND, keyId: '', value: serialize(creds) }]);
  }

  wipe(): void {
    this.#generation += 1;
    this.#cache.clear();
    this.store.wipe(this.sessionId);
  }

  /**
   * Creds and keys for one socket. Its writes are dropped once the session is wiped: a socket
   * closing after a logout still commits Signal transactions and would otherwise bring rows back.
   */
  authStateUntilWipe(creds: AuthenticationCreds): { creds: AuthenticationCreds; keys: SignalKeyStore; saveCreds: () => void } {
    const generation = this.#generation;
    const current = () => generation === this.#generation;
    return {
      creds,
      keys: { get: (type, ids) => this.#getKeys(type, ids), set: (data) => (current() ? this.#setKeys(data) : undefined) },
      saveCreds: () => (current() ? this.saveCreds(creds) : undefined),
    };
  }

  #getKeys<T extends KeyType>(type: T, ids: string[]): { [id: string]: SignalDataTypeMap[T] } {
    const found: { [id: string]: SignalDataTypeMap[T] } = {};
    for (const id of ids) {
      const value = this.#readKey(type, id);
      if (value !== undefined) found[id] = value as SignalDataTypeMap[T];
    }
    return found;
  }

  #readKey(type: KeyType, id: string): unknown {
    const cacheKey = `${type}/${id}`;
    const cached = this.#cache.get(cacheKey);
    if (cached !== undefined) return cached === ABSENT ? undefined : cached;
    const bytes = this.store.read(this.sessionId, type, id);
    const value = bytes ? deserializeKey(type, bytes) : undefined;
    // Misses are cached too: Baileys asks for a privacy token it never got on every send.
    this.#cache.set(cacheKey, value ?? ABSENT);
    return value;
  }

  #setKeys(data: SignalDataSet): void {
    const rows: CredentialsRow[] = [];
    for (const [type, entries] of Object.entries(data) as [KeyType, Record<string, unknown>][]) {
      for (const [id, written] of Object.entries(entries ?? {})) {
        const value = type === 'session' ? pruneClosedSessions(written) : written;
        const cacheKey = `${type}/${id}`;
        // Pre-keys arrive 812 at a time on pairing and are read once each, if ever: not cached.
        if (type === 'pre-key') this.#cache.delete(cacheKey);
        else this.#cache.set(cacheKey, value ?? ABSENT);
        rows.push({ kind: type, keyId: id, value: value === null || value === undefined ? null : serialize(value) });
      }
    }
    this.store.write(this.sessionId, rows);
  }
}

function serialize(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value, BufferJSON.replacer), 'utf8');
}

function deserializeKey(type: KeyType, bytes: Buffer): unknown {
  const value: unknown = JSON.parse(bytes.toString('utf8'), BufferJSON.reviver);
  // Same as Baileys' own file store: app-state keys must come back as proto objects.
  return type === 'app-state-sync-key' ? proto.Message.AppStateSyncKeyData.fromObject(value as object) : value;
}
