import { describe, expect, it } from 'vitest';
import { fuse, fuseRanks, fuseScores } from '../../../widget/core/retrieval/fuse.ts';

describe('fuseScores', () => {
  const bm25 = [
    { chunk: 1, score: 10 },
    { chunk: 2, score: 5 },
    { chunk: 3, score: 0 },
  ];
  const vector = [
    { chunk: 3, score: 1 },
    { chunk: 2, score: 0.5 },
    { chunk: 4, score: 0 },
  ];

  it('weight 1 is pure BM25 and weight 0 pure vector (0 is not "unset")', () => {
    expect(fuseScores(bm25, vector, 1)[0].chunk).toBe(1);
    expect(fuseScores(bm25, vector, 0)[0].chunk).toBe(3);
  });

  it('rewards a chunk both sides rank well', () => {
    const fused = fuseScores(bm25, vector, 0.5);
    // chunk 2: 0.5*0.5 + 0.5*0.5 = 0.5; chunk 1: 0.5; chunk 3: 0.5 — ties broken by chunk index.
    expect(fused.map((h) => h.chunk).slice(0, 3)).toEqual([1, 2, 3]);
    const two = fused.find((h) => h.chunk === 2)!;
    expect(two.bm25).toBe(5);
    expect(two.vector).toBe(0.5);
  });

  it('keeps raw scores null on the side that did not retrieve the chunk', () => {
    const four = fuseScores(bm25, vector, 0.5).find((h) => h.chunk === 4)!;
    expect(four.bm25).toBeNull();
    expect(four.vector).toBe(0);
  });
});

describe('fuseRanks (weighted reciprocal-rank fusion)', () => {
  const bm25 = [
    { chunk: 1, score: 100 },
    { chunk: 2, score: 1 },
    { chunk: 3, score: 0.5 },
  ];
  const vector = [
    { chunk: 3, score: 0.9 },
    { chunk: 2, score: 0.89 },
    { chunk: 4, score: 0.2 },
  ];

  it('scores w / (k + rank) from each side that retrieved the chunk', () => {
    const fused = fuseRanks(bm25, vector, 0.5, 60);
    const score = (chunk: number) => fused.find((h) => h.chunk === chunk)!.score;
    expect(score(1)).toBeCloseTo(0.5 / 61);
    expect(score(2)).toBeCloseTo(0.5 / 62 + 0.5 / 62);
    expect(score(3)).toBeCloseTo(0.5 / 63 + 0.5 / 61);
    expect(score(4)).toBeCloseTo(0.5 / 63);
    // Both sides' second and first places beat one side's first place, whatever the raw scores.
    expect(fused.map((h) => h.chunk)).toEqual([3, 2, 1, 4]);
    expect(fused.find((h) => h.chunk === 4)!.bm25).toBeNull();
  });

  it('reads ranks only: rescaling a side changes nothing', () => {
    const scaled = bm25.map((h) => ({ ...h, score: h.score * 1000 + 7 }));
    expect(fuseRanks(scaled, vector, 0.3, 20).map((h) => h.chunk)).toEqual(fuseRanks(bm25, vector, 0.3, 20).map((h) => h.chunk));
  });

  it('weight 1 keeps the BM25 order, 0 the vector order, and a small k trusts the first ranks more', () => {
    expect(
      fuseRanks(bm25, vector, 1, 60)
        .slice(0, 3)
        .map((h) => h.chunk),
    ).toEqual([1, 2, 3]);
    expect(
      fuseRanks(bm25, vector, 0, 60)
        .slice(0, 3)
        .map((h) => h.chunk),
    ).toEqual([3, 2, 4]);
    // BM25's first (weight 0.7) against a chunk second on both sides: k 1 prefers the first place,
    // k 60 the agreement.
    const a = [
      { chunk: 1, score: 3 },
      { chunk: 2, score: 2 },
    ];
    const b = [
      { chunk: 3, score: 3 },
      { chunk: 2, score: 2 },
    ];
    expect(fuseRanks(a, b, 0.7, 1)[0].chunk).toBe(1);
    expect(fuseRanks(a, b, 0.7, 60)[0].chunk).toBe(2);
  });

  it('fuse() dispatches on the method', () => {
    expect(fuse(bm25, vector, { method: 'rrf', bm25Weight: 0.5, rrfK: 60 })).toEqual(fuseRanks(bm25, vector, 0.5, 60));
    expect(fuse(bm25, vector, { method: 'minmax', bm25Weight: 0.5, rrfK: 60 })).toEqual(fuseScores(bm25, vector, 0.5));
    expect(() => fuseRanks(bm25, vector, 0.5, -1)).toThrow(RangeError);
  });
});
