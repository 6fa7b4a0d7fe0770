/**
 * widget/core/steps.ts: long synchronous work written as steps gives the event loop a turn once a
 * slice of work has run, so an abort from a macrotask (as Ctrl-C's handler is) stops it.
 */
import { describe, expect, it } from 'vitest';
import { isHarelError } from '../../../widget/core/errors.ts';
import { finishNow, pause, runSteps, SLICE_MS, textPieces, type Steps } from '../../../widget/core/steps.ts';

/** `n` steps of busy work, each longer than a slice; counts how many ran. */
function* slowSteps(n: number, ran: { count: number }): Steps<string> {
  for (let i = 0; i < n; i++) {
    const until = performance.now() + SLICE_MS + 5;
    while (performance.now() < until) {
      // busy: no event-loop turn unless the driver gives one
    }
    ran.count++;
    yield;
  }
  return 'done';
}

describe('pace', () => {
  it('finishNow runs the steps to the end at once', () => {
    const ran = { count: 0 };
    expect(finishNow(slowSteps(2, ran))).toBe('done');
    expect(ran.count).toBe(2);
  });

  it('runSteps lets an abort scheduled as a macrotask stop the work after the step it ran in', async () => {
    const controller = new AbortController();
    setImmediate(() => controller.abort());
    const ran = { count: 0 };
    const error = await runSteps(slowSteps(20, ran), controller.signal).catch((e: unknown) => e);
    expect(isHarelError(error, 'ABORTED')).toBe(true);
    expect(ran.count).toBe(1);
  });

  it('runSteps without an abort returns the result', async () => {
    const ran = { count: 0 };
    expect(await runSteps(slowSteps(3, ran))).toBe('done');
    expect(ran.count).toBe(3);
  });

  it('pause throws once the signal has fired', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(pause(controller.signal)).rejects.toSatisfy((e) => isHarelError(e, 'ABORTED'));
  });

  it('textPieces cuts a long text between words only, and the pieces make up the text', () => {
    const text = Array.from({ length: 5000 }, (_, i) => (i % 7 === 0 ? `line ${i}\n` : `word${i} `)).join('');
    const pieces = [...textPieces(text, 1000)];
    expect(pieces.length).toBeGreaterThan(10);
    expect(pieces.join('')).toBe(text);
    for (const piece of pieces.slice(1)) expect(piece[0]).toMatch(/[\n ]/);
  });
});
