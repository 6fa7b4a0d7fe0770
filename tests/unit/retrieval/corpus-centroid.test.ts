/**
 * The corpus's mean direction and coherence (widget/core/retrieval/corpus-centroid.ts), on int8
 * tables whose answer is known in closed form.
 */
import { describe, expect, it } from 'vitest';
import type { VectorTable } from '../../../widget/core/format/vector-file.ts';
import { corpusAffinity, corpusCentroid } from '../../../widget/core/retrieval/corpus-centroid.ts';

const table = (rows: number[][], scale = 1 / 127): VectorTable => ({
  count: rows.length,
  dim: rows[0]?.length ?? 3,
  data: Int8Array.from(rows.flat()),
  scales: new Float32Array(rows.length).fill(scale),
});

describe('corpusCentroid', () => {
  it('is the normalised mean of the unit rows, and its coherence their mean cosine to it', () => {
    const c = corpusCentroid(
      table([
        [127, 0, 0],
        [0, 127, 0],
      ]),
    )!;
    expect(c.direction[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(c.direction[1]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(c.direction[2]).toBe(0);
    expect(c.coherence).toBeCloseTo(Math.SQRT1_2, 6);
  });

  it('weighs every row alike, whatever its quantised length', () => {
    // The same two directions, one row stored at a tenth of the length: the same centroid.
    const c = corpusCentroid(
      table([
        [13, 0, 0],
        [0, 127, 0],
      ]),
    )!;
    expect(c.direction[0]).toBeCloseTo(c.direction[1], 6);
  });

  it('is fully coherent (1) for rows all alike, a row of zeros left out', () => {
    const c = corpusCentroid(
      table([
        [0, 90, 0],
        [0, 0, 0],
        [0, 127, 0],
      ]),
    )!;
    expect([...c.direction]).toEqual([0, 1, 0]);
    expect(c.coherence).toBeCloseTo(1, 6);
  });

  it('is null for an empty table, and computed once per table', () => {
    expect(corpusCentroid(table([]))).toBeNull();
    const t = table([[127, 0, 0]]);
    expect(corpusCentroid(t)).toBe(corpusCentroid(t));
  });
});

describe('corpusAffinity', () => {
  it("is the question's cosine to the mean direction less the coherence", () => {
    const c = corpusCentroid(
      table([
        [127, 0, 0],
        [0, 127, 0],
      ]),
    )!;
    expect(corpusAffinity(c, Float32Array.of(Math.SQRT1_2, Math.SQRT1_2, 0))).toBeCloseTo(1 - Math.SQRT1_2, 6);
    expect(corpusAffinity(c, Float32Array.of(0, 0, 1))).toBeCloseTo(-Math.SQRT1_2, 6);
  });
});
