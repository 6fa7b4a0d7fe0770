/**
 * Groups of near-identical texts (yearly editions, product tiers and copies of one policy
 * page). Each text gets a group id, or -1 when it has no twin. Threshold: Jaccard of 5-word
 * shingles ≥ 0.7 — the overlap the issue names; see the note for what it merges on the corpus.
 */
import { finishNow, type Steps } from '../../widget/core/steps.ts';
import { candidatePairsSteps, jaccard, shinglesSteps } from './minhash.ts';

export interface TwinOptions {
  /** Jaccard similarity of shingle sets at or above which two texts are twins. */
  threshold?: number;
  /** Texts with fewer shingles are never twins: short pages (a form's header) match too easily. */
  minShingles?: number;
  /**
   * Shingles found in more texts than this are site furniture (navigation, footers of scraped
   * pages), not content: two web pages sharing only their menus must not become twins. The
   * largest real twin group on the Harel corpus has 15 pages; default 30.
   */
  maxShingleFrequency?: number;
}

export const DEFAULT_TWIN_THRESHOLD = 0.7;

export function twinGroups(texts: readonly string[], options: TwinOptions = {}): Int32Array {
  return finishNow(twinGroupsSteps(texts, options));
}

/** `twinGroups` as steps, one per text and per candidate pair (the build runs it with pauses: widget/core/steps.ts). */
export function* twinGroupsSteps(texts: readonly string[], options: TwinOptions = {}): Steps<Int32Array> {
  const threshold = options.threshold ?? DEFAULT_TWIN_THRESHOLD;
  const sets: Set<number>[] = [];
  for (const text of texts) {
    yield;
    sets.push(yield* shinglesSteps(text));
  }
  const frequency = new Map<number, number>();
  for (const set of sets) {
    yield;
    for (const x of set) frequency.set(x, (frequency.get(x) ?? 0) + 1);
  }
  const maxFrequency = options.maxShingleFrequency ?? 30;
  for (const set of sets) {
    yield;
    for (const x of set) if (frequency.get(x)! > maxFrequency) set.delete(x);
  }
  const parent = Int32Array.from(texts, (_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (const [a, b] of yield* candidatePairsSteps(sets, options.minShingles ?? 20)) {
    yield;
    if (jaccard(sets[a], sets[b]) >= threshold) parent[find(a)] = find(b);
  }
  const size = new Map<number, number>();
  for (let i = 0; i < texts.length; i++) size.set(find(i), (size.get(find(i)) ?? 0) + 1);
  // Group ids are the smallest member index: stable for a given input order.
  const groupId = new Map<number, number>();
  const out = new Int32Array(texts.length).fill(-1);
  for (let i = 0; i < texts.length; i++) {
    const root = find(i);
    if (size.get(root)! < 2) continue;
    if (!groupId.has(root)) groupId.set(root, i);
    out[i] = groupId.get(root)!;
  }
  return out;
}
