/**
 * A smaller shipping form of Orama's saved BM25 state. Orama saves, for every document, a map of
 * each of its terms to its frequency: the corpus's vocabulary spelled out again per document,
 * about 40 % of the state. Every (term, document) pair is also in the radix tree's posting
 * lists, so only the counts that are not 1 need shipping; the reader rebuilds the maps from the
 * tree before handing the state to Orama's load().
 */
import type { RawData } from '@orama/orama';

interface RadixNode {
  w: string;
  e: boolean;
  d: number[];
  c: [string, RadixNode][];
}

interface IndexState {
  indexes: Record<string, { type: string; node: RadixNode }>;
  frequencies: Record<string, Record<string, Record<string, number>>>;
  /** Ours: per property, term → flat [docId, count, docId, count…] for counts other than 1. */
  sparseFrequencies?: Record<string, Record<string, number[]>>;
}

type State = RawData & { index: IndexState };

export function compactFrequencies(raw: RawData): RawData {
  const state = raw as State;
  const sparse: Record<string, Record<string, number[]>> = {};
  for (const [prop, byDoc] of Object.entries(state.index.frequencies)) {
    const terms: Record<string, number[]> = (sparse[prop] = {});
    for (const [doc, counts] of Object.entries(byDoc)) {
      if (!counts) continue;
      for (const [term, count] of Object.entries(counts)) {
        if (count !== 1) (terms[term] ??= []).push(Number(doc), count);
      }
    }
  }
  return { ...state, index: { ...state.index, frequencies: {}, sparseFrequencies: sparse } } as RawData;
}

export function expandFrequencies(raw: RawData): RawData {
  const state = raw as State;
  const sparse = state.index.sparseFrequencies;
  if (!sparse) return raw;
  const frequencies: IndexState['frequencies'] = {};
  for (const [prop, { type, node }] of Object.entries(state.index.indexes)) {
    if (type !== 'Radix') continue;
    const byDoc: Record<string, Record<string, number>> = (frequencies[prop] = {});
    const counts = sparse[prop] ?? {};
    const stack: RadixNode[] = [node];
    while (stack.length) {
      const n = stack.pop()!;
      if (n.e) {
        const special = new Map<number, number>();
        const flat = counts[n.w];
        if (flat) for (let i = 0; i < flat.length; i += 2) special.set(flat[i], flat[i + 1]);
        for (const doc of n.d) (byDoc[doc] ??= {})[n.w] = special.get(doc) ?? 1;
      }
      for (const [, child] of n.c) stack.push(child);
    }
  }
  const { sparseFrequencies: _dropped, ...index } = state.index;
  return { ...state, index: { ...index, frequencies } } as RawData;
}
