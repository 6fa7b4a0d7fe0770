/** int8 vector quantisation shared by the builder and the browser (widget/core/format/int8.ts). */
import { describe, expect, it } from 'vitest';
import { dequantizeDot, packVectors, quantizeInt8 } from '../../../widget/core/format/int8.ts';

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, x, i) => s + x * b[i], 0);

function randomUnitVectors(count: number, dim: number, seed: number): Float32Array[] {
  let state = seed;
  const rand = () => ((state = (state * 16807) % 2147483647) / 2147483647) * 2 - 1;
  return Array.from({ length: count }, () => {
    const v = Float32Array.from({ length: dim }, rand);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

describe('int8 quantisation', () => {
  it('keeps cosine above 0.99 for random unit vectors of 384 dimensions', () => {
    let worst = 1;
    for (const v of randomUnitVectors(50, 384, 7)) {
      const { q, scale } = quantizeInt8(v);
      const back = Float32Array.from(q, (x) => x * scale);
      worst = Math.min(worst, dot(v, back) / Math.hypot(...back));
    }
    expect(worst).toBeGreaterThan(0.99);
  });

  it('scores packed vectors like the float dot product', () => {
    const vectors = randomUnitVectors(20, 384, 11);
    const [query] = randomUnitVectors(1, 384, 13);
    const { data, scales, dim } = packVectors(vectors);
    expect(dim).toBe(384);
    expect(data.length).toBe(20 * 384);
    for (let i = 0; i < vectors.length; i++) {
      expect(Math.abs(dequantizeDot(query, data, i * dim, dim, scales[i]) - dot(query, vectors[i]))).toBeLessThan(0.01);
    }
  });

  it('packs vectors back to back with one scale each', () => {
    const packed = packVectors([Float32Array.from([0.5, -1]), Float32Array.from([0.25, 0.25])]);
    expect([...packed.data]).toEqual([64, -127, 127, 127]);
    expect(packed.scales[0]).toBeCloseTo(1 / 127, 8);
    expect(packed.scales[1]).toBeCloseTo(0.25 / 127, 8);
  });

  it('handles the zero vector and rejects mixed dimensions', () => {
    const { q, scale } = quantizeInt8(new Float32Array(4));
    expect([...q]).toEqual([0, 0, 0, 0]);
    expect(Number.isFinite(scale)).toBe(true);
    expect(() => packVectors([new Float32Array(4), new Float32Array(3)])).toThrow(/3 dimensions/);
  });
});
