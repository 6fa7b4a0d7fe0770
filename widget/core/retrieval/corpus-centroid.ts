/**
 * Where the index lies as a whole in E5's space: the mean direction of its chunks' vectors, and how
 * tightly they gather round it (their mean cosine to it, the corpus's coherence).
 *
 * Why: E5's cosines all sit high (0.75–0.95), and how high depends on the corpus as much as on the
 * question. On the insurer's 15,744 chunks an off-topic question's nearest chunk is at 0.83 while
 * a HeQ (general knowledge) question's nearest chunk in its own 252-chunk index is at 0.85, so a
 * fixed cosine cannot tell them apart across sites. A question's cosine to the corpus's mean
 * direction, less that corpus's coherence, can: measured on the development sets, on-topic
 * medians −0.013 (dev-v2/v3), −0.034 (HeQ), −0.042 (demo) against −0.097 and −0.107 for the
 * off-topic set over the Harel and the demo index (AUC 0.99 pooled, against 0.84 for the nearest
 * cosine). builder/eval/fit-answerability.ts fits it with the other evidence.
 */
import type { VectorTable } from '../format/vector-file.ts';

export interface CorpusCentroid {
  /** Unit vector: the mean of the chunks' unit vectors, normalised. */
  direction: Float32Array;
  /** The chunks' mean cosine to `direction` (1: all alike). */
  coherence: number;
}

const computed = new WeakMap<VectorTable, CorpusCentroid | null>();

/** The table's centroid (null for an empty table); computed once per table, a few milliseconds at 15k × 384. */
export function corpusCentroid(table: VectorTable): CorpusCentroid | null {
  if (computed.has(table)) return computed.get(table) ?? null;
  const { count, dim, data } = table;
  // A row of zeros (no direction) is left out of the mean.
  const sum = new Float64Array(dim);
  let rows = 0;
  for (let i = 0; i < count; i++) {
    const at = i * dim;
    // Each int8 row is renormalised rather than scaled: the quantiser's scale does not quite make
    // it unit length, and every chunk must weigh the same.
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += data[at + d] * data[at + d];
    if (norm === 0) continue;
    rows++;
    const inv = 1 / Math.sqrt(norm);
    for (let d = 0; d < dim; d++) sum[d] += data[at + d] * inv;
  }
  let length = 0;
  for (let d = 0; d < dim; d++) length += sum[d] * sum[d];
  length = Math.sqrt(length);
  const result =
    rows === 0 || length === 0
      ? null
      : {
          direction: Float32Array.from(sum, (v) => v / length),
          // The mean of the unit rows' cosines to the mean direction is the mean vector's length.
          coherence: length / rows,
        };
  computed.set(table, result);
  return result;
}

/** The question's cosine to the corpus's mean direction, less the corpus's coherence (see above). */
export function corpusAffinity(centroid: CorpusCentroid, query: Float32Array): number {
  let dot = 0;
  for (let d = 0; d < query.length; d++) dot += query[d] * centroid.direction[d];
  return dot - centroid.coherence;
}
