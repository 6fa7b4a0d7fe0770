/**
 * Hybrid fusion of BM25 and vector scores. Each list is min-max normalised over its own
 * candidates and the two are added with a tuned weight. Orama's own hybrid does the same with a
 * fixed 0.5/0.5 and treats a weight of 0 as "unset"; here 0 and 1 mean pure vector and pure BM25.
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

function normalise(hits: readonly ScoredChunk[]): Map<number, number> {
  const out = new Map<number, number>();
  if (hits.length === 0) return out;
  let min = Infinity;
  let max = -Infinity;
  for (const h of hits) {
    min = Math.min(min, h.score);
    max = Math.max(max, h.score);
  }
  const range = max - min;
  for (const h of hits) out.set(h.chunk, range > 0 ? (h.score - min) / range : 1);
  return out;
}

export function fuseScores(
  bm25: readonly ScoredChunk[],
  vector: readonly ScoredChunk[],
  bm25Weight: number,
): FusedHit[] {
  const w = Math.min(1, Math.max(0, bm25Weight));
  const nb = normalise(bm25);
  const nv = normalise(vector);
  const rawB = new Map(bm25.map((h) => [h.chunk, h.score]));
  const rawV = new Map(vector.map((h) => [h.chunk, h.score]));
  const ids = new Set([...nb.keys(), ...nv.keys()]);
  const fused: FusedHit[] = [];
  for (const chunk of ids) {
    const score = w * (nb.get(chunk) ?? 0) + (1 - w) * (nv.get(chunk) ?? 0);
    fused.push({ chunk, score, bm25: rawB.get(chunk) ?? null, vector: rawV.get(chunk) ?? null });
  }
  fused.sort((a, b) => b.score - a.score || a.chunk - b.chunk);
  return fused;
}
