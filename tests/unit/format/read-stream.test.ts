/**
 * The one stream-to-bytes loop (core/format/bytes.ts) that downloads, model files, the GGUF probe,
 * the crawler and gunzip's cap read through: progress per chunk, the cap, abort, and that the
 * stream is let go of however reading ends.
 */
import { describe, expect, it } from 'vitest';
import { isHarelError } from '../../../widget/core/errors.ts';
import { gunzip, gzip, readStreamBytes } from '../../../widget/core/format/bytes.ts';

/** A stream of `chunks`, then `end` (done, or an error), that records whether it was cancelled. */
function chunked(chunks: number[][], end: 'done' | Error = 'done') {
  const state = { cancelled: false, pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[state.pulled++];
      if (next) controller.enqueue(new Uint8Array(next));
      else if (end === 'done') controller.close();
      else controller.error(end);
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

describe('readStreamBytes', () => {
  it('joins the chunks in order and reports the bytes so far after each', async () => {
    const { stream } = chunked([[1, 2], [3], [4, 5, 6]]);
    const seen: number[] = [];
    const bytes = await readStreamBytes(stream, { onBytes: (n) => seen.push(n) });
    expect([...bytes]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seen).toEqual([2, 3, 6]);
  });

  it('stops at the cap with the chunk that reached it, and lets go of the rest', async () => {
    const { stream, state } = chunked([
      [1, 2],
      [3, 4],
      [5, 6],
      [7, 8],
    ]);
    const bytes = await readStreamBytes(stream, { stopAt: 3 });
    expect([...bytes]).toEqual([1, 2, 3, 4]);
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(4);
  });

  it('throws ABORTED before the next read once the signal fires, and lets go of the stream', async () => {
    const controller = new AbortController();
    const { stream, state } = chunked([[1], [2], [3]]);
    const reading = readStreamBytes(stream, { signal: controller.signal, onBytes: (n) => n === 1 && controller.abort() });
    await expect(reading).rejects.toSatisfy((error: unknown) => isHarelError(error, 'ABORTED'));
    expect(state.cancelled).toBe(true);
  });

  it('throws a read error as it is: the caller names what failed', async () => {
    const failure = new TypeError('network gone');
    const { stream } = chunked([[1]], failure);
    await expect(readStreamBytes(stream)).rejects.toBe(failure);
  });
});

describe('gunzip with a cap', () => {
  it('inflates up to the cap, and refuses more', async () => {
    const text = new TextEncoder().encode('ביטוח רכב '.repeat(1000));
    const packed = await gzip(text);
    expect(await gunzip(packed, text.length)).toEqual(text);
    await expect(gunzip(packed, text.length - 1)).rejects.toThrow(RangeError);
  });
});
