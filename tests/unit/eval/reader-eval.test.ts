/**
 * The reader's figures (builder/eval/reader-eval.ts): span F1 and exact match with Hebrew prefixes
 * split off, no-answer recall and false rate over the questions the reader read, the time per call,
 * and the loop's refusals as they would be with reader-refuses.
 */
import { describe, expect, it } from 'vitest';
import { formatReaderSummary, spanScores, summarizeReader } from '../../../builder/eval/reader-eval.ts';
import { readerRecord } from './reader-record.ts';

const record = readerRecord;

describe('reader figures', () => {
  it('scores a span against the best ground truth, a prefixed Hebrew word matching its bare form', () => {
    expect(spanScores('30 יום', ['תוך 30 יום', 'שלושים יום'])).toEqual({ f1: 0.8, exact: 0 });
    expect(spanScores('והשתתפות עצמית', ['השתתפות עצמית'])).toEqual({ f1: 1, exact: 1 });
    expect(spanScores(null, ['30 יום'])).toEqual({ f1: 0, exact: 0 });
    expect(spanScores('500 ש"ח', ['600 ש"ח']).exact).toBe(0);
  });

  it('counts no-answer recall and false rate over the questions read, and refusals with reader-refuses', () => {
    const records = [
      record({ id: 'a1', span: '30 יום', f1: 1, exact: 1, ms: 2000, calls: 1 }),
      record({ id: 'a2', verdict: 'no-answer', f1: 0, exact: 0, ms: 4000, calls: 2 }),
      record({ id: 'a3', verdict: 'no-answer', f1: 0, exact: 0, confidence: 'high', ms: 3000, calls: 1 }),
      record({ id: 'u1', answerable: false, verdict: 'no-answer', ms: 6000, calls: 2 }),
      record({ id: 'u2', answerable: false, verdict: 'span', span: 'x', ms: 1000, calls: 1 }),
      record({ id: 'u3', answerable: false, verdict: 'skipped', calls: 0, ms: 0, refused: true, confidence: 'low' }),
    ];
    const s = summarizeReader(records);
    expect(s).toMatchObject({ questions: 6, read: 5, spans: 2 });
    expect(s.f1).toBeCloseTo(1 / 3);
    expect(s.noAnswer).toEqual({ recall: 0.5, falseRate: 2 / 3, unanswerableRead: 2, answerableRead: 3 });
    expect(s.msP50).toBe(2000);
    expect(s.loop).toEqual({
      unanswerable: 3,
      refusedUnanswerable: 1,
      refusedUnanswerableWithReader: 2,
      answerable: 3,
      falseRefusals: 0,
      // a3 is "high": the reader's "not here" does not refuse it.
      falseRefusalsWithReader: 1,
      high: 1,
      highCitesGold: 1,
    });
    expect(formatReaderSummary(s)).toContain('no-answer: recall 50.0 %');
  });
});
