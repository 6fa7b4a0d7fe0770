import { describe, expect, it } from 'vitest';
import { compareReports, formatComparison } from '../../../builder/eval/browser/compare.ts';
import type { ScoredQuestion } from '../../../builder/eval/browser/score-question.ts';
import { summarize } from '../../../builder/eval/browser/summarize.ts';

const q = (id: string, failures: ScoredQuestion['failures'], pageRank: number | null): ScoredQuestion => ({
  id,
  question: `question ${id}`,
  domain: 'car',
  difficulty: 'easy',
  lang: 'he',
  answerable: true,
  error: null,
  text: 't',
  confidence: 'high',
  refused: false,
  refusal: null,
  citations: [],
  citationHit: failures.length === 0,
  citationHitLenient: failures.length === 0,
  reference: null,
  f1: null,
  judge: null,
  timings: { assess: 0, embed: 0, search: 0, grade: 0, generate: 0, ground: 0, total: 10 },
  failures,
  fileRank: pageRank,
  pageRank,
  fileRankLenient: pageRank,
  pageRankLenient: pageRank,
});
const report = (records: ScoredQuestion[]) => ({ metrics: { overall: summarize(records) }, records });

describe('compareReports', () => {
  const old = report([q('a', [], 1), q('b', ['no-gold-citation'], null), q('c', [], 2), q('gone', [], 1)]);
  const now = report([q('a', ['no-gold-citation'], null), q('b', [], 1), q('c', [], 4), q('new', [], 1)]);
  const c = compareReports(old, now);

  it('names newly failing and newly passing questions', () => {
    expect(c.newlyFailing.map((x) => x.id)).toEqual(['a']);
    expect(c.newlyPassing.map((x) => x.id)).toEqual(['b']);
    expect(c.rankChanged.map((x) => [x.id, x.oldPageRank, x.newPageRank])).toEqual([['c', 2, 4]]);
    expect(c.onlyOld).toEqual(['gone']);
    expect(c.onlyNew).toEqual(['new']);
  });

  it('gives metric deltas over the shared questions and prints the regression by name', () => {
    const hit1 = c.metrics.find((m) => m.name === 'page hit@1')!;
    expect(hit1.old).toBeCloseTo(1 / 3);
    expect(hit1.new).toBeCloseTo(1 / 3);
    expect(c.metrics.find((m) => m.name === 'page MRR')!.delta).toBeCloseTo((0 + 1 + 0.25) / 3 - (1 + 0 + 0.5) / 3);
    const text = formatComparison(c);
    expect(text).toContain('newly failing: 1');
    expect(text).toMatch(/a \[pass → no-gold-citation\] question a/);
  });
});

describe('records compared with timings masked', () => {
  it('counts a record that differs only in its timings as the same, and names the fields that differ otherwise', () => {
    const slower = { ...q('a', [], 1), timings: { assess: 5, embed: 9, search: 40, grade: 3, generate: 7, ground: 2, total: 80 } };
    const otherQuote = { ...q('b', [], 1), text: 'another sentence', citations: [{ n: 1, file: 'f.pdf', page: 2, quote: 'q', problem: null, gold: true }] };
    const c = compareReports(report([q('a', [], 1), q('b', [], 1), q('c', [], 1)]), report([slower, otherQuote, q('c', [], 1)]));
    expect(c.recordsCompared).toBe(3);
    expect(c.recordsDiffer).toEqual([{ id: 'b', fields: ['citations', 'text'] }]);
    expect(formatComparison(c)).toContain('records, timings masked: 3 compared, 1 differ');
  });
});
