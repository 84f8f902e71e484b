/**
 * Canonical JSON: the one text a JSON value has whatever the key order it was built with. Object
 * keys sorted by UTF-16 code units, no whitespace, strings and numbers as `JSON.stringify` writes
 * them: RFC 8785 (JCS) for every value an event holds. Values `JSON.stringify` drops or turns into
 * null (undefined, functions, NaN, `toJSON`) are treated the same way, so an event hashes alike
 * before it is stored and after it is read back.
 */
export function canonicalJson(value: unknown): string {
  return canonical(value, '') ?? 'null';
}

/** An object's canonical text without its top-level `omitted` keys. */
export function canonicalJsonWithout(value: Record<string, unknown>, omitted: ReadonlySet<string>): string {
  return objectText(value, omitted);
}

const none: ReadonlySet<string> = new Set();

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

// Written for speed (audit verify hashes every stored event): plain loops, no intermediate arrays.
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
