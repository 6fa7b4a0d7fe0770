/**
 * Hybrid fusion of BM25 and vector candidates, two ways:
 *
 * - `fuseScores`: each list min-max normalised over its own candidates, the two added with a
 *   weight. Orama's own hybrid does the same with a fixed 0.5/0.5 and treats a weight of 0 as
 *   "unset"; here 0 and 1 mean pure vector and pure BM25.
 * - `fuseRanks`: weighted reciprocal-rank fusion, w / (k + rank) from each list. It reads ranks
 *   only, so one outlying score (a BM25 list with one huge match, a flat cosine list) cannot
 *   squash the other side's spread.
 *
 * Which one hybrid search uses, with what weight and candidate pools, was fitted on the
 * development sets by builder/eval/fit-fusion.ts (its result in builder/eval/fit/fusion-result.json).
 */

export interface ScoredChunk {
  chunk: number;
  score: number;
}

export interface FusedHit {
  chunk: number;
  score: number;
  bm25: number | null;
  vector: number | null;
}

export type FusionMethod = 'minmax' | 'rrf';

export interface FusionSettings {
  method: FusionMethod;
  /** Weight of the BM25 side (the vector side gets 1 − bm25Weight), in [0, 1]. */
  bm25Weight: number;
  /** RRF's rank offset: larger flattens the difference between the first ranks. */
  rrfK: number;
}

/** Maps a list's scores onto [0, 1] by its own minimum and maximum (all 1 when they are equal). */
function minMax(hits: readonly ScoredChunk[]): (hit: ScoredChunk) => number {
  let min = Infinity;
  let max = -Infinity;
  for (const h of hits) {
    min = Math.min(min, h.score);
    max = Math.max(max, h.score);
  }
  const range = max - min;
  return (h) => (range > 0 ? (h.score - min) / range : 1);
}

/**
 * One pass over each list (a chunk listed twice on one side counts once, at its first place):
 * hybrid search fuses a few hundred candidates on every question. Each hit is created once, whole,
 * so that every FusedHit keeps one object shape.
 */
function combine(bm25: readonly ScoredChunk[], vector: readonly ScoredChunk[], onBm25: (hit: ScoredChunk, index: number) => number, onVector: (hit: ScoredChunk, index: number) => number): FusedHit[] {
  const bSide = new Map<number, number>();
  bm25.forEach((h, i) => {
    if (!bSide.has(h.chunk)) bSide.set(h.chunk, i);
  });
  const vSide = new Map<number, number>();
  vector.forEach((h, i) => {
    if (!vSide.has(h.chunk)) vSide.set(h.chunk, i);
  });
  const fused: FusedHit[] = [];
  for (const [chunk, i] of bSide) {
    const j = vSide.get(chunk);
    const b = bm25[i];
    const v = j === undefined ? null : vector[j];
    fused.push({ chunk, score: onBm25(b, i) + (v ? onVector(v, j!) : 0), bm25: b.score, vector: v ? v.score : null });
  }
  for (const [chunk, j] of vSide) {
    if (!bSide.has(chunk)) fused.push({ chunk, score: onVector(vector[j], j), bm25: null, vector: vector[j].score });
  }
  fused.sort((x, y) => y.score - x.score || x.chunk - y.chunk);
  return fused;
}

const clampWeight = (w: number) => Math.min(1, Math.max(0, w));

export function fuseScores(bm25: readonly ScoredChunk[], vector: readonly ScoredChunk[], bm25Weight: number): FusedHit[] {
  const w = clampWeight(bm25Weight);
  const nb = minMax(bm25);
  const nv = minMax(vector);
  return combine(
    bm25,
    vector,
    (h) => w * nb(h),
    (h) => (1 - w) * nv(h),
  );
}

/**
 * Weighted reciprocal-rank fusion: bm25Weight / (k + BM25 rank) + (1 − bm25Weight) / (k + vector
 * rank), a side that did not retrieve the chunk adding nothing. Both lists must be sorted best first.
 */
export function fuseRanks(bm25: readonly ScoredChunk[], vector: readonly ScoredChunk[], bm25Weight: number, k: number): FusedHit[] {
  if (!(k >= 0)) throw new RangeError(`RRF k must be a number ≥ 0, got ${k}`);
  const w = clampWeight(bm25Weight);
  return combine(
    bm25,
    vector,
    (_, i) => w / (k + i + 1),
    (_, i) => (1 - w) / (k + i + 1),
  );
}

/** Fuses with the given settings' method. */
export function fuse(bm25: readonly ScoredChunk[], vector: readonly ScoredChunk[], settings: FusionSettings): FusedHit[] {
  return settings.method === 'rrf' ? fuseRanks(bm25, vector, settings.bm25Weight, settings.rrfK) : fuseScores(bm25, vector, settings.bm25Weight);
}
