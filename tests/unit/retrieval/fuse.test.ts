import { describe, expect, it } from 'vitest';
import { fuseScores } from '../../../widget/core/retrieval/fuse.ts';

describe('fuseScores', () => {
  const bm25 = [{ chunk: 1, score: 10 }, { chunk: 2, score: 5 }, { chunk: 3, score: 0 }];
  const vector = [{ chunk: 3, score: 1 }, { chunk: 2, score: 0.5 }, { chunk: 4, score: 0 }];

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
