/**
 * Brute-force cosine search over the int8 vector table. A scan of 20k × 384 int8 values takes a
 * few milliseconds, which beats building an ANN structure the browser would have to load.
 */
import { dequantizeDot } from '../format/int8.ts';
import type { VectorTable } from '../format/vector-file.ts';

export interface VectorHit {
  chunk: number;
  /** Cosine similarity (vectors and query are unit length; int8 error is ~1 %). */
  score: number;
}

export interface VectorSearchOptions {
  k: number;
  /** Only chunks for which this returns true are considered. */
  filter?: (chunk: number) => boolean;
}

export function searchVectors(table: VectorTable, query: Float32Array, options: VectorSearchOptions): VectorHit[] {
  const { count, dim, data, scales } = table;
  if (query.length !== dim) throw new Error(`query has ${query.length} dimensions, the index ${dim}`);
  const scores = new Float32Array(count);
  for (let i = 0; i < count; i++) scores[i] = dequantizeDot(query, data, i * dim, dim, scales[i]);
  return topK(scores, options.k, options.filter);
}

function topK(scores: Float32Array, k: number, filter?: (i: number) => boolean): VectorHit[] {
  const hits: VectorHit[] = [];
  for (let i = 0; i < scores.length; i++) {
    if (filter && !filter(i)) continue;
    hits.push({ chunk: i, score: scores[i] });
  }
  hits.sort((a, b) => b.score - a.score);
  return hits.slice(0, k);
}
