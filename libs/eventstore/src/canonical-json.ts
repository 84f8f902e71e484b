/**
 * Canonical JSON: the one text a JSON value has whatever the key order it was built with. Object
 * keys sorted by UTF-16 code units, no whitespace, strings and numbers as `JSON.stringify` writes
 * them: RFC 8785 (JCS) for every value an event holds. Values `JSON.stringify` drops or turns into
 * null (undefined, functions, NaN, `toJSON`) are treated the same way, so an event hashes alike
 * before it is stored and after it is read back.
 */
export function canonicalJson(value: unknown): string {
  const copy = sortedCopy(value);
  return copy === unsortable ? canonical(value, '') ?? 'null' : JSON.stringify(copy) ?? 'null';
}

/** An object's canonical text without its top-level `omitted` keys. */
export function canonicalJsonWithout(value: Record<string, unknown>, omitted: ReadonlySet<string>): string {
  const copy = sortedObjectCopy(value, omitted);
  return copy === unsortable ? objectText(value, omitted) : JSON.stringify(copy);
}

const none: ReadonlySet<string> = new Set();

/*
 * The fast way (audit verify hashes every stored event): a copy of the value made of plain objects
 * whose keys were added in sorted order, arrays and primitives, which the native JSON.stringify
 * then writes in canonical form, about twice as fast as building the text in JavaScript. It holds
 * as long as an object's keys enumerate in the order they were added, which is not so for
 * integer-like keys (engines list them first, numerically), nor for `__proto__` (assigning it
 * sets the prototype), nor where `toJSON` or a bigint is met: for those the text is built by hand.
 */
const unsortable = Symbol('unsortable');

function sortedCopy(value: unknown): unknown {
  if (typeof value === 'bigint') return unsortable;
  if (typeof value !== 'object' || value === null) return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return unsortable;
  if (!Array.isArray(value)) return sortedObjectCopy(value as Record<string, unknown>, none);
  const copy = new Array<unknown>(value.length);
  for (let i = 0; i < value.length; i += 1) {
    const item = sortedCopy(value[i]);
    if (item === unsortable) return unsortable;
    copy[i] = item;
  }
  return copy;
}

function sortedObjectCopy(object: Record<string, unknown>, omitted: ReadonlySet<string>): Record<string, unknown> | typeof unsortable {
  const copy: Record<string, unknown> = {};
  const keys = sortedKeys(object);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    if (omitted.has(key)) continue;
    const first = key.charCodeAt(0);
    if ((first >= 0x30 && first <= 0x39) || key === '__proto__') return unsortable;
    const member = sortedCopy(object[key]);
    if (member === unsortable) return unsortable;
    copy[key] = member;
  }
  return copy;
}

/** undefined: a value JSON leaves out (in an object) or writes as null (in an array). */
function canonical(value: unknown, key: string): string | undefined {
  switch (typeof value) {
    case 'string':
      return quoted(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'bigint':
      throw new TypeError('canonical JSON: a bigint has no JSON form');
    case 'object':
      if (value === null) return 'null';
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
        return canonical((value as { toJSON: (key: string) => unknown }).toJSON(key), key);
      }
      return Array.isArray(value) ? arrayText(value) : objectText(value as Record<string, unknown>, none);
    default:
      return undefined;
  }
}

function arrayText(items: readonly unknown[]): string {
  let text = '[';
  for (let i = 0; i < items.length; i += 1) text += (i === 0 ? '' : ',') + (canonical(items[i], String(i)) ?? 'null');
  return `${text}]`;
}

// The text built by hand (see sortedCopy): plain loops, no intermediate arrays.
function objectText(object: Record<string, unknown>, omitted: ReadonlySet<string>): string {
  let text = '{';
  let separator = '';
  const keys = sortedKeys(object);
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys[i]!;
    if (omitted.has(key)) continue;
    const member = canonical(object[key], key);
    if (member === undefined) continue;
    text += `${separator}${quoted(key)}:${member}`;
    separator = ',';
  }
  return `${text}}`;
}

/**
 * The object's keys by UTF-16 code units (`<` on strings compares them, as RFC 8785 orders keys).
 * Insertion sort: objects have a handful of keys, where it beats Array.prototype.sort severalfold.
 */
function sortedKeys(object: object): string[] {
  const keys = Object.keys(object);
  for (let i = 1; i < keys.length; i += 1) {
    const key = keys[i]!;
    let j = i - 1;
    while (j >= 0 && keys[j]! > key) {
      keys[j + 1] = keys[j]!;
      j -= 1;
    }
    keys[j + 1] = key;
  }
  return keys;
}

// Nothing JSON.stringify would escape: quotes, backslashes, control characters, surrogates (lone ones are escaped).
const needsNoEscape = /^[^"\\\u0000-\u001f\ud800-\udfff]*$/;

/** A string as JSON.stringify writes it; most need no escaping, and quoting them directly is faster. */
function quoted(text: string): string {
  return needsNoEscape.test(text) ? `"${text}"` : JSON.stringify(text);
}
