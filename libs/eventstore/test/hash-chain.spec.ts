import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  ChainVerifier, GENESIS_HASH, canonicalJson, chainEvents, eventHash, verifyStream, type NewEvent, type RecordedEvent,
} from '../src/index.js';

const stream = 'message-msg_1';

/** A stream as an adapter stores it: chained from `prevHash`, revisions from `fromRevision`, positions 10 apart. */
function storedStream(count: number, { fromRevision = 0n, prevHash = GENESIS_HASH, name = stream } = {}): RecordedEvent[] {
  const { chained } = chainEvents(prevHash, newEvents(count, Number(fromRevision)));
  return chained.map((event, i) => recorded(event, fromRevision + BigInt(i), name));
}

function newEvents(count: number, from = 0): NewEvent[] {
  return Array.from({ length: count }, (_, i) => ({
    type: i === 0 ? 'MessageAccepted' : 'MessageSent',
    data: { messageId: 'msg_1', n: from + i, text: `hello ${from + i}` },
    metadata: { accountId: 'acc_1', correlationId: `c-${from + i}`, schemaVersion: 1 },
  }));
}

function recorded(event: NewEvent, revision: bigint, name = stream): RecordedEvent {
  return {
    stream: name, type: event.type, revision, position: 100n + revision * 10n,
    // As read back from a store: JSON, whatever key order.
    data: JSON.parse(JSON.stringify(event.data ?? null)) as unknown,
    metadata: JSON.parse(JSON.stringify(event.metadata ?? {})) as Record<string, unknown>,
    recordedAt: new Date(0), id: `id-${name}-${revision}`,
  };
}

const hashOf = (event: RecordedEvent | undefined) => event?.metadata['hash'] as string;

describe('canonical JSON', () => {
  it('writes one text whatever the key order: keys sorted at every level, no whitespace', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: null, y: 'é' }], c: true } })).toBe('{"a":{"c":true,"d":[3,{"y":"é","z":null}]},"b":1}');
    expect(canonicalJson({ a: { c: true, d: [3, { y: 'é', z: null }] }, b: 1 })).toBe(canonicalJson({ b: 1, a: { d: [3, { z: null, y: 'é' }], c: true } }));
    // Keys sort by UTF-16 code units (RFC 8785): "10" before "9", uppercase before lowercase.
    expect(canonicalJson({ 9: 'x', 10: 'y', b: 1, B: 2 })).toBe('{"10":"y","9":"x","B":2,"b":1}');
  });

  it('turns values into JSON as JSON.stringify does, so an event hashes alike before it is stored and after', () => {
    const value = { when: new Date('2026-01-02T03:04:05.000Z'), gone: undefined, f: () => 1, list: [undefined, Number.NaN, -0, 1e21], s: 'line\n"q"\u0000' };
    expect(canonicalJson(value)).toBe('{"list":[null,null,0,1e+21],"s":"line\\n\\"q\\"\\u0000","when":"2026-01-02T03:04:05.000Z"}');
    expect(canonicalJson(JSON.parse(JSON.stringify(value)))).toBe(canonicalJson(value));
    expect(canonicalJson(undefined)).toBe('null');
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
  });

  it('writes the same text whether a value is sortable by a plain copy or not (integer-like keys, __proto__, toJSON deep inside)', () => {
    const parsed = JSON.parse('{"z":{"__proto__":{"b":1,"a":2},"y":[{"2":"two","10":"ten"}]},"a":{"when":"x"}}') as Record<string, unknown>;
    expect(canonicalJson(parsed)).toBe('{"a":{"when":"x"},"z":{"__proto__":{"a":2,"b":1},"y":[{"10":"ten","2":"two"}]}}');
    expect(canonicalJson(JSON.parse('{"b":{"__proto__":{"d":1,"c":2}},"a":1}'))).toBe('{"a":1,"b":{"__proto__":{"c":2,"d":1}}}');
    expect(canonicalJson(JSON.parse('{"b":[{"2":"two","10":"ten"}],"a":1}'))).toBe('{"a":1,"b":[{"10":"ten","2":"two"}]}');
    expect(canonicalJson({ b: [{ at: new Date(0), k: 1 }], a: '\ud800' })).toBe('{"a":"\\ud800","b":[{"at":"1970-01-01T00:00:00.000Z","k":1}]}');
    // Many shapes, against a reference written independently: sort every object's keys, JSON.stringify the rest.
    const reference = (value: unknown): string => {
      if (Array.isArray(value)) return `[${value.map((item) => reference(item)).join(',')}]`;
      if (value === null || typeof value !== 'object') return JSON.stringify(value);
      const keys = Object.keys(value).sort();
      return `{${keys.map((key) => `${JSON.stringify(key)}:${reference((value as Record<string, unknown>)[key])}`).join(',')}}`;
    };
    const pick = <T>(items: readonly T[], i: number): T => items[i % items.length]!;
    const keys = ['b', 'a', 'Z', 'é', '1', '01', '-1', '__proto__', 'a b', '\u2028', 'ab', ''];
    const leaves = [0, -1.5, 1e-7, 'x"\\y', '\u0001', true, null, 'ü😀'];
    const shape = (seed: number, depth: number): unknown => {
      if (depth === 0 || seed % 5 === 0) return pick(leaves, seed);
      if (seed % 3 === 0) return Array.from({ length: seed % 4 }, (_, i) => shape(seed * 7 + i, depth - 1));
      return JSON.parse(`{${Array.from({ length: 1 + (seed % 5) }, (_, i) => `${JSON.stringify(pick(keys, seed + i * 3))}:${JSON.stringify(shape(seed * 11 + i, depth - 1))}`).join(',')}}`);
    };
    for (let seed = 1; seed < 400; seed += 1) {
      const value = shape(seed, 4);
      expect(canonicalJson(value)).toBe(reference(value));
    }
  });
});

describe('event hash', () => {
  it('is SHA-256 over the canonical JSON of data, metadata without its links, prevHash, type and version', () => {
    const text = `{"data":{"a":1,"b":[true,null]},"metadata":{"accountId":"acc_1","schemaVersion":2},"prevHash":"${GENESIS_HASH}","type":"T","version":2}`;
    const expected = createHash('sha256').update(text).digest('hex');
    const metadata = { schemaVersion: 2, hash: 'not covered', accountId: 'acc_1', prevHash: 'not covered either' };
    expect(eventHash(GENESIS_HASH, { type: 'T', data: { b: [true, null], a: 1 }, metadata })).toBe(expected);
    // Without a schemaVersion the event is read as version 1.
    expect(eventHash(GENESIS_HASH, { type: 'T', data: null, metadata: {} })).toBe(
      createHash('sha256').update(`{"data":null,"metadata":{},"prevHash":"${GENESIS_HASH}","type":"T","version":1}`).digest('hex'),
    );
  });

  it('links each chained event to the one before it, keeping its metadata', () => {
    const { chained, head } = chainEvents(GENESIS_HASH, newEvents(3));
    expect(chained.map((e) => e.metadata?.['prevHash'])).toEqual([GENESIS_HASH, chained[0]!.metadata!['hash'], chained[1]!.metadata!['hash']]);
    expect(head).toBe(chained[2]!.metadata!['hash']);
    expect(chained[1]!.metadata).toMatchObject({ accountId: 'acc_1', correlationId: 'c-1' });
  });
});

describe('verifyStream', () => {
  it('finds nothing in an untouched stream and reports where its chain starts and its head', () => {
    const events = storedStream(6);
    expect(verifyStream(events)).toEqual({
      findings: [],
      summary: { stream, events: 6, unchainedEvents: 0, chainedFrom: 0n, head: hashOf(events[5]) },
    });
  });

  it('reports an edited event as altered at its revision and position: the hash of what it says now vs the stored one', () => {
    const events = storedStream(6);
    const edited = { ...events[2]!, data: { ...(events[2]!.data as object), text: 'edited' } };
    events[2] = edited;
    expect(verifyStream(events).findings).toEqual([
      { stream, revision: 2n, position: 120n, kind: 'altered', expected: eventHash(hashOf(events[1]), edited), found: hashOf(edited) },
    ]);
  });

  it('reports an edited event whose hash was rewritten too: the chain skips it', () => {
    const events = storedStream(6);
    const data = { ...(events[2]!.data as object), text: 'edited' };
    const rehashed = { ...events[2]!, data, metadata: { ...events[2]!.metadata, hash: eventHash(hashOf(events[1]), { ...events[2]!, data }) } };
    const original = hashOf(events[2]);
    events[2] = rehashed;
    expect(verifyStream(events).findings).toEqual([
      { stream, revision: 3n, position: 130n, kind: 'removed', expected: hashOf(rehashed), found: original },
    ]);
  });

  it('reports a deleted event as removed at its revision, found before the next event (position)', () => {
    const events = storedStream(6);
    const deleted = events.splice(3, 1)[0]!;
    expect(verifyStream(events).findings).toEqual([
      { stream, revision: 3n, position: 140n, kind: 'removed', expected: hashOf(events[2]), found: hashOf(deleted) },
    ]);
    // Deleted with the later revisions renumbered to close the gap: the chain still skips it.
    const renumbered = events.map((e, i) => ({ ...e, revision: BigInt(i) }));
    expect(verifyStream(renumbered).findings).toMatchObject([{ revision: 3n, kind: 'removed', expected: hashOf(events[2]), found: hashOf(deleted) }]);
  });

  it('reports a deleted first event, and one deleted just before the last (found as the stream ends)', () => {
    const events = storedStream(4);
    expect(verifyStream(events.slice(1)).findings).toEqual([
      { stream, revision: 0n, position: 110n, kind: 'removed', expected: GENESIS_HASH, found: hashOf(events[0]) },
    ]);
    expect(verifyStream([events[0]!, events[1]!, events[3]!]).findings).toMatchObject([{ revision: 2n, position: 130n, kind: 'removed' }]);
  });

  it('reports two swapped events as reordered, each at its revision', () => {
    const events = storedStream(6);
    const [second, third] = [events[2]!, events[3]!];
    events[2] = { ...third, revision: 2n, position: second.position };
    events[3] = { ...second, revision: 3n, position: third.position };
    expect(verifyStream(events).findings).toEqual([
      { stream, revision: 2n, position: 120n, kind: 'reordered', expected: hashOf(second), found: hashOf(third) },
      { stream, revision: 3n, position: 130n, kind: 'reordered', expected: hashOf(third), found: hashOf(second) },
    ]);
  });

  it('reports an inserted event, forged links or none, as inserted at its revision', () => {
    const events = storedStream(5);
    const forged = recorded(chainEvents(hashOf(events[1]), newEvents(1, 99)).chained[0]!, 2n);
    const withForged = [...events.slice(0, 2), forged, ...events.slice(2).map((e) => ({ ...e, revision: e.revision + 1n }))];
    expect(verifyStream(withForged).findings).toEqual([
      { stream, revision: 2n, position: 120n, kind: 'inserted', expected: hashOf(events[1]), found: hashOf(forged) },
    ]);
    const bogus = { ...forged, metadata: { ...forged.metadata, prevHash: 'f'.repeat(64) } };
    const withBogus = [...events.slice(0, 2), bogus, ...events.slice(2).map((e) => ({ ...e, revision: e.revision + 1n }))];
    expect(verifyStream(withBogus).findings).toEqual([
      { stream, revision: 2n, position: 120n, kind: 'altered', expected: eventHash('f'.repeat(64), bogus), found: hashOf(forged) },
      { stream, revision: 2n, position: 120n, kind: 'inserted', expected: hashOf(events[1]), found: hashOf(forged) },
    ]);
  });

  it('reports an event stripped of its links as altered', () => {
    const events = storedStream(4);
    const { hash, prevHash, ...metadata } = events[1]!.metadata;
    events[1] = { ...events[1]!, metadata };
    expect(verifyStream(events).findings).toEqual([{ stream, revision: 1n, position: 110n, kind: 'altered', expected: hash, found: 'none' }]);
    expect(prevHash).toBe(hashOf(events[0]));
  });

  it('reports a stream written before chains as unchained, never as tampered', () => {
    const legacy = newEvents(4).map((event, i) => recorded(event, BigInt(i)));
    legacy.splice(1, 1);
    expect(verifyStream(legacy)).toEqual({ findings: [], summary: { stream, events: 3, unchainedEvents: 3, chainedFrom: undefined, head: undefined } });
  });

  it('checks a stream chained from some revision on from there', () => {
    const legacy = newEvents(3).map((event, i) => recorded(event, BigInt(i)));
    const chained = storedStream(3, { fromRevision: 3n });
    expect(verifyStream([...legacy, ...chained])).toEqual({
      findings: [], summary: { stream, events: 6, unchainedEvents: 3, chainedFrom: 3n, head: hashOf(chained[2]) },
    });
    chained[1] = { ...chained[1]!, type: 'MessageFailed' };
    expect(verifyStream([...legacy, ...chained]).findings).toMatchObject([{ revision: 4n, kind: 'altered' }]);
  });
});

describe('ChainVerifier', () => {
  it('checks interleaved streams of a log each on its own', () => {
    const a = storedStream(4, { name: 'message-a' });
    const b = storedStream(4, { name: 'message-b' });
    b.splice(1, 1);
    const verifier = new ChainVerifier();
    const findings = [a[0], b[0], a[1], b[1], a[2], b[2], a[3]].flatMap((event) => verifier.add(event!));
    findings.push(...verifier.end());
    expect(findings).toMatchObject([{ stream: 'message-b', revision: 1n, kind: 'removed' }]);
    expect([...verifier.summaries()].map((s) => [s.stream, s.events, s.chainedFrom])).toEqual([['message-a', 4, 0n], ['message-b', 3, 0n]]);
  });
});
