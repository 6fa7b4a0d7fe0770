/**
 * BM25 search over format 2's `bm25.bin`, in place. Scores are Orama 3.1.18's BM25 as the
 * builder's reference index computes them (bm25.ts; a test compares the two on every development
 * question), but the work per query is a pass over typed arrays:
 * - scores accumulate in a Float64Array indexed by chunk id, with no Map or object per
 *   (term, chunk) pair;
 * - the top k are selected with a k-sized heap instead of sorting every matched chunk;
 * - MaxScore-style pruning: the query's posting lists are scored from the highest score bound
 *   down, and once the bounds of the lists left add up to less than the current k-th best score,
 *   no chunk that has not scored yet can reach the top k, so those lists only add to chunks
 *   already scored and skip the rest of their postings.
 * Why not Orama's own search() over this as its index component: that contract returns every
 * matched (id, score) pair and Orama then sorts them all and fetches documents, which is the
 * 25 % of search time spent sorting and the per-pair allocation the issue measured. Orama stays
 * the builder's reference implementation.
 */
import type { Bm25File, PostingsRef } from '../format/bm25-file.ts';
import { tokenize } from '../tokenizer/tokenize.ts';

export interface Bm25Hit {
  /** Index of the chunk in the index's chunk table. */
  chunk: number;
  score: number;
}

export interface Bm25SearchOptions {
  k: number;
  domain?: string | null;
  /** Boost of the context field relative to the body. */
  contextBoost?: number;
  /** BM25 parameters (Orama's defaults: k 1.2, b 0.75, d 0.5). */
  relevance?: { k?: number; b?: number; d?: number };
  /**
   * Score these chunks as members of a larger collection: document frequencies, chunk count and
   * average field lengths are this file's and `background`'s together. A customer's document (a
   * hundred chunks) is searched this way beside the site's index, so that its scores are on the
   * site's scale and the two merge by score: alone, its few chunks would give every word a high
   * IDF and outscore the site on any match.
   */
  background?: Bm25File | null;
}

interface QueryList {
  field: number;
  ref: PostingsRef;
  idf: number;
  boost: number;
  /** The most this list can add to one chunk's score. */
  bound: number;
  ids: Uint32Array;
  tfs: Uint32Array;
}

/** Orama's BM25 term score, written operation for operation as Orama does so sums agree to the bit. */
function bm25(idf: number, tf: number, fieldLength: number, averageFieldLength: number, k: number, b: number, d: number): number {
  return (idf * (d + tf * (k + 1))) / (tf + k * (1 - b + (b * fieldLength) / averageFieldLength));
}

export class Bm25Index {
  readonly file: Bm25File;
  /** Scratch reused by every search (a worker searches one query at a time). */
  private readonly scores: Float64Array;
  private readonly touched: Uint32Array;

  constructor(file: Bm25File) {
    this.file = file;
    this.scores = new Float64Array(file.chunks);
    this.touched = new Uint32Array(file.chunks);
  }

  get chunkCount(): number {
    return this.file.chunks;
  }

  /** Chunks whose body holds `term` (a term as the tokenizer produces it). */
  documentFrequency(term: string): number {
    return this.file.lookup(term)?.[0]?.df ?? 0;
  }

  search(query: string, options: Bm25SearchOptions): Bm25Hit[] {
    return this.searchTerms(tokenize(query, { forQuery: true }), options);
  }

  /** Scores chunks for query terms; every term may match (customer questions rarely share every word with a passage). */
  searchTerms(terms: readonly string[], options: Bm25SearchOptions): Bm25Hit[] {
    const { file } = this;
    const k1 = options.relevance?.k ?? 1.2;
    const b = options.relevance?.b ?? 0.75;
    const d = options.relevance?.d ?? 0.5;
    const boosts = [1, options.contextBoost ?? 0.5];
    const k = Math.max(0, Math.floor(options.k));
    let domain = -1;
    if (options.domain) {
      domain = file.domainIndex(options.domain);
      if (domain < 0) return [];
    }
    if (k === 0) return [];

    const background = options.background ?? null;
    const total = file.chunks + (background?.chunks ?? 0);
    const averages = file.avgFieldLength.map((average, field) => (background ? (average * file.chunks + background.avgFieldLength[field] * background.chunks) / total : average));
    // Lists in Orama's order (field by field, then term by term): the order final scores are summed in.
    const refs = new Map<string, (PostingsRef | null)[] | null>();
    const backgroundRefs = new Map<string, (PostingsRef | null)[] | null>();
    const lists: QueryList[] = [];
    file.fields.forEach((_, field) => {
      if (!(boosts[field] > 0)) return;
      for (const term of terms) {
        if (!refs.has(term)) refs.set(term, file.lookup(term));
        const ref = refs.get(term)?.[field];
        if (!ref) continue;
        if (background && !backgroundRefs.has(term)) backgroundRefs.set(term, background.lookup(term));
        const df = ref.df + (backgroundRefs.get(term)?.[field]?.df ?? 0);
        const idf = Math.log(1 + (total - df + 0.5) / (df + 0.5));
        const bound = bm25(idf, ref.maxTf, ref.minLength, averages[field], k1, b, d) * boosts[field];
        const ids = new Uint32Array(ref.df);
        const tfs = new Uint32Array(ref.df);
        lists.push({ field, ref, idf, boost: boosts[field], bound, ids, tfs });
      }
    });
    if (lists.length === 0) return [];

    const byBound = [...lists].sort((x, y) => y.bound - x.bound);
    const rest = new Float64Array(byBound.length);
    for (let i = byBound.length - 2; i >= 0; i--) rest[i] = rest[i + 1] + byBound[i + 1].bound;

    const { scores, touched } = this;
    const domains = file.chunkDomain;
    let count = 0;
    let best = 0;
    let open = true;
    try {
      for (let i = 0; i < byBound.length; i++) {
        const list = byBound[i];
        const n = file.decodePostings(list.field, list.ref, list.ids, list.tfs);
        const lengths = file.fieldLengths[list.field];
        const average = averages[list.field];
        const { ids, tfs, idf, boost } = list;
        for (let j = 0; j < n; j++) {
          const chunk = ids[j];
          const before = scores[chunk];
          if (before === 0) {
            // Every term score is positive, so 0 means "not scored yet".
            if (!open || (domain >= 0 && domains[chunk] !== domain)) continue;
            touched[count++] = chunk;
          }
          const after = before + bm25(idf, tfs[j], lengths[chunk], average, k1, b, d) * boost;
          scores[chunk] = after;
          if (after > best) best = after;
        }
        if (open && count >= k && rest[i] < best && rest[i] < this.kthBest(count, k)) open = false;
      }
      const top = this.selectTop(count, k);
      // The pruned pass summed in bound order; sum the winners again in Orama's order so their
      // scores (and so ties between near-identical chunks) are exactly the reference's.
      const hits = top.map((chunk) => ({ chunk, score: canonicalScore(chunk, lists, file, averages, k1, b, d) }));
      return hits.sort((x, y) => y.score - x.score || x.chunk - y.chunk);
    } finally {
      for (let i = 0; i < count; i++) scores[touched[i]] = 0;
    }
  }

  /** The k-th best score among the chunks scored so far. */
  private kthBest(count: number, k: number): number {
    const heap = this.heapOfBest(count, k);
    return this.scores[heap[0]];
  }

  /** The k best chunks scored so far, in no particular order. */
  private selectTop(count: number, k: number): number[] {
    return Array.from(this.heapOfBest(count, k));
  }

  /**
   * A min-heap (by score, then by descending id) of the best min(k, count) scored chunks: one
   * pass, O(count · log k), instead of sorting every match.
   */
  private heapOfBest(count: number, k: number): Uint32Array {
    const { scores, touched } = this;
    const size = Math.min(k, count);
    const heap = new Uint32Array(size);
    // "a ranks below b": lower score, or the same score and a later chunk (ties go to the earlier chunk).
    const below = (a: number, b: number) => scores[a] < scores[b] || (scores[a] === scores[b] && a > b);
    const siftDown = (at: number) => {
      for (;;) {
        const l = 2 * at + 1;
        const r = l + 1;
        let low = at;
        if (l < size && below(heap[l], heap[low])) low = l;
        if (r < size && below(heap[r], heap[low])) low = r;
        if (low === at) return;
        const t = heap[at];
        heap[at] = heap[low];
        heap[low] = t;
        at = low;
      }
    };
    for (let i = 0; i < size; i++) heap[i] = touched[i];
    for (let i = (size >> 1) - 1; i >= 0; i--) siftDown(i);
    for (let i = size; i < count; i++) {
      const chunk = touched[i];
      if (below(heap[0], chunk)) {
        heap[0] = chunk;
        siftDown(0);
      }
    }
    return heap;
  }
}

function canonicalScore(chunk: number, lists: readonly QueryList[], file: Bm25File, averages: readonly number[], k1: number, b: number, d: number): number {
  let score = 0;
  for (const list of lists) {
    const at = indexOf(list.ids, chunk);
    if (at < 0) continue;
    score += bm25(list.idf, list.tfs[at], file.fieldLengths[list.field][chunk], averages[list.field], k1, b, d) * list.boost;
  }
  return score;
}

function indexOf(sorted: Uint32Array, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = sorted[mid];
    if (v === value) return mid;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}
