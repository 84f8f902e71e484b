/**
 * A Map that forgets its least recently used entries beyond `capacity`, and entries older than
 * `ttlMs` when read. No timers: an entry costs only its slot (timers per entry pinned whole
 * Baileys transactions in memory, see BAILEYS-MEMORY-FINDINGS.md).
 */
export class BoundedMap<K, V> {
  readonly #entries = new Map<K, { value: V; expiresAt: number }>();

  constructor(
    readonly capacity: number,
    readonly ttlMs = Number.POSITIVE_INFINITY,
  ) {
    if (capacity < 1) throw new RangeError('capacity must be at least 1');
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    if (entry.expiresAt <= Date.now()) return undefined;
    this.#entries.set(key, entry);
    return entry.value;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  set(key: K, value: V): this {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expiresAt: Date.now() + this.ttlMs });
    if (this.#entries.size > this.capacity) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    return this;
  }

  delete(key: K): boolean {
    return this.#entries.delete(key);
  }

  clear(): void {
    this.#entries.clear();
  }
}
