import type { FactSource, StoredFact } from './fact-sources.js';

/** Facts handed on at once: the consumer loops over arrays, not a promise per fact. */
const BATCH = 1_000;

/**
 * The facts of several sources as one sequence, in batches: each source keeps its own order (its
 * store's log order), and across sources the earlier recorded comes first; positions of different
 * stores say nothing of each other, but on one shared log (KurrentDB) the position decides. Holds
 * one page per source and one batch.
 */
export async function* mergedFacts(sources: readonly FactSource[]): AsyncGenerator<StoredFact[]> {
  const iterators = sources.map((source) => source[Symbol.asyncIterator]());
  const pages: (StoredFact[] | undefined)[] = await Promise.all(iterators.map(nextPage));
  const at = pages.map(() => 0);
  try {
    let batch: StoredFact[] = [];
    for (;;) {
      let first = -1;
      for (let i = 0; i < pages.length; i += 1) {
        if (pages[i] !== undefined && (first === -1 || comesBefore(pages[i]![at[i]!]!, pages[first]![at[first]!]!))) first = i;
      }
      if (first === -1) break;
      batch.push(pages[first]![at[first]!]!);
      at[first]! += 1;
      if (at[first]! < pages[first]!.length && batch.length < BATCH) continue;
      if (batch.length > 0) yield batch;
      batch = [];
      if (at[first]! >= pages[first]!.length) {
        pages[first] = await nextPage(iterators[first]!);
        at[first] = 0;
      }
    }
    if (batch.length > 0) yield batch;
  } finally {
    await Promise.all(iterators.map((iterator) => iterator.return?.()));
  }
}

/** The source's next non-empty page, or undefined once it has no more. */
async function nextPage(iterator: AsyncIterator<StoredFact[]>): Promise<StoredFact[] | undefined> {
  for (;;) {
    const next = await iterator.next();
    if (next.done) return undefined;
    if (next.value.length > 0) return next.value;
  }
}

function comesBefore(a: StoredFact, b: StoredFact): boolean {
  return a.service === b.service ? a.event.position < b.event.position : a.event.recordedAt.getTime() < b.event.recordedAt.getTime();
}
