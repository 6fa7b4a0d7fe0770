/**
 * The windowed encoder (widget/core/embedding/windowed-encoder.ts) on a stand-in model whose
 * hidden state is (1, token id): the runs it is asked for show what each window holds.
 */
import { describe, expect, it } from 'vitest';
import { createWindowedEncoder, type EncoderParts } from '../../../widget/core/embedding/windowed-encoder.ts';

function standIn(runs: { batch: number; length: number; ids: number[][] }[]): EncoderParts {
  return {
    // One token per character: 'a' → 10, 'b' → 11, …
    contentIds: (text) => [...text].map((c) => c.charCodeAt(0) - 87),
    special: { bos: 0, eos: 2 },
    pad: 1,
    async run(ids, mask, batch, length) {
      const rows: number[][] = [];
      for (let b = 0; b < batch; b++) rows.push([...ids.subarray(b * length, (b + 1) * length)].filter((_, t) => mask[b * length + t] === 1n).map(Number));
      runs.push({ batch, length, ids: rows });
      // Two dimensions: 1 and the token's id, so the pooled direction tells windows apart.
      const data = new Float32Array(batch * length * 2);
      for (let i = 0; i < batch * length; i++) {
        data[i * 2] = 1;
        data[i * 2 + 1] = Number(ids[i]);
      }
      return { data, dimensions: 2 };
    },
  };
}

describe('createWindowedEncoder', () => {
  it('runs a long text as windows of maxLength (with <s> and </s>), all in one batch', async () => {
    const runs: { batch: number; length: number; ids: number[][] }[] = [];
    const encoder = createWindowedEncoder(standIn(runs), { maxLength: 6 });
    const [vector] = await encoder.encode(['abcdefghij']);
    expect(runs).toHaveLength(1);
    expect(runs[0].ids).toEqual([
      [0, 10, 11, 12, 13, 2],
      [0, 14, 15, 16, 17, 2],
      [0, 18, 19, 2],
    ]);
    expect(vector).toHaveLength(2);
    expect(Math.hypot(...vector)).toBeCloseTo(1, 6);
  });

  it('with firstWindowOnly, embeds only the first window of a long text (a hostile question costs one run of one window)', async () => {
    const runs: { batch: number; length: number; ids: number[][] }[] = [];
    const encoder = createWindowedEncoder(standIn(runs), { maxLength: 6, firstWindowOnly: true });
    const [long] = await encoder.encode(['abcdefghij']);
    expect(runs[0].ids).toEqual([[0, 10, 11, 12, 13, 2]]);
    expect(encoder.tokenIds('abcdefghij')).toEqual([0, 10, 11, 12, 13, 2]);
    const [short] = await encoder.encode(['abcd']);
    expect([...long]).toEqual([...short]);
  });
});
