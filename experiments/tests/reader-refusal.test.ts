import { describe, expect, it } from 'vitest';
import { crossFitReaderRefusal, readerRefusalRows } from '../reader-refusal.ts';
import type { ReaderEvalRecord } from '../../builder/eval/reader-eval.ts';
import { readerRecord } from '../../tests/unit/eval/reader-record.ts';

// A span read with some doubt, unless `over` says otherwise.
const record = (over: Partial<ReaderEvalRecord>) => readerRecord({ span: 'x', answerableProbability: 0.7, correctProbability: 0.5, ...over });

describe('refusing on the reader’s word, fitted', () => {
  it('makes a row per record: features only where the reader read, the rule as reader-refuses applies it', () => {
    const rows = readerRefusalRows(
      [
        record({ id: 'read', verdict: 'no-answer', span: null, noAnswerProbability: 0.8 }),
        record({ id: 'high', verdict: 'no-answer', span: null, confidence: 'high' }),
        record({ id: 'refused', refused: true, calls: 0, verdict: 'skipped', answerableProbability: null }),
      ],
      'dev-v2',
      2,
    );
    expect(rows.map((r) => r.features === null)).toEqual([false, false, true]);
    expect(rows[0]!.features![0]).toBeCloseTo(Math.log(0.7 / 0.3), 12);
    expect(rows[0]!.features!.slice(1)).toEqual([1, 0.8, 0]);
    expect(rows.map((r) => r.refusedByRule)).toEqual([true, false, true]);
    expect(rows.every((r) => r.fold === 2 && r.set === 'dev-v2')).toBe(true);
  });

  it('refuses to fit on records an older eval wrote, and says what to do', () => {
    expect(() => readerRefusalRows([record({ answerableProbability: null })], 'HeQ', 0)).toThrow(/LOOP=1/);
  });

  it('scores every fold with a model and threshold fitted on the others', () => {
    // In every fold the reader says "not here" on the unanswerable questions and answers the rest;
    // the loop refused one unanswerable question of each fold before reading.
    const records = (fold: number): ReaderEvalRecord[] => [
      ...Array.from({ length: 8 }, (_, i) => record({ id: `a${fold}-${i}`, answerableProbability: 0.5 + i / 40, noAnswerProbability: 0.05 })),
      ...Array.from({ length: 3 }, (_, i) => record({ id: `u${fold}-${i}`, answerable: false, verdict: 'no-answer', span: null, answerableProbability: 0.45 + i / 40, noAnswerProbability: 0.9 })),
      record({ id: `r${fold}`, answerable: false, refused: true, calls: 0, verdict: 'skipped', span: null, answerableProbability: null }),
    ];
    const rows = [0, 1, 2].flatMap((fold) => readerRefusalRows(records(fold), 'dev-v2', fold));
    const report = crossFitReaderRefusal(rows, { maxFalseRefusal: 0.1, thresholdSets: new Set(['dev-v2']) });
    expect(report.folds).toEqual([0, 1, 2]);
    const { loop, rule, fitted } = report.sets['dev-v2']!;
    expect(loop).toEqual({ unanswerable: 12, unanswerableRefused: 3, answerable: 24, answerableRefused: 0 });
    expect(rule.unanswerableRefused).toBe(12);
    expect(fitted.unanswerableRefused).toBe(12);
    expect(fitted.answerableRefused).toBe(0);
  });

  it('leaves out a fold whose other folds hold no question of one kind', () => {
    const rows = readerRefusalRows([record({ id: 'a' }), record({ id: 'b', answerable: false })], 'HeQ', 0);
    expect(crossFitReaderRefusal(rows, { maxFalseRefusal: 0.1, thresholdSets: new Set(['dev-v2']) }).folds).toEqual([]);
  });
});
