import { describe, expect, it } from 'vitest';
import type { Answer, Citation } from '../../../widget/answer/types.ts';
import { percentile, scoreAnswers, type AnswerRecord } from '../../../builder/eval/browser/answer-metrics.ts';
import type { EvalQuestion } from '../../../builder/eval/questions.ts';

const citation = (file: string, page: number): Citation => ({
  n: 1,
  chunkId: 'c',
  file,
  page,
  url: null,
  title: 't',
  sectionPath: [],
  clause: null,
  quote: 'q',
  alsoIn: [],
});

const answer = (citations: Citation[], refused: boolean, total: number): Answer => ({
  text: 'x',
  citations,
  mode: 'extractive',
  confidence: refused ? 'low' : 'high',
  refused,
  refusal: refused ? 'no-passages' : null,
  domain: null,
  lang: 'he',
  searchedQuery: 'x',
  searchMode: 'bm25',
  retrieved: [],
  timings: { assess: 0, embed: 0, search: 0, grade: 0, generate: 0, ground: 0, total },
});

const question = (id: string, facts: EvalQuestion['facts'], answerable = true): EvalQuestion => ({
  id,
  question: id,
  domain: 'car',
  difficulty: 'easy',
  kind: null,
  answerable,
  facts,
  answers: [],
});

const record = (q: EvalQuestion, a: Answer | null, error: string | null = null): AnswerRecord => ({
  id: q.id,
  question: q.question,
  domain: q.domain,
  difficulty: q.difficulty,
  answerable: q.answerable,
  answer: a,
  error,
});

describe('answer metrics', () => {
  const hit = question('hit', [[{ file: 'car/a.pdf', page: 3 }]]);
  const anyPage = question('any', [[{ file: 'car/web.txt', page: null }]]);
  const miss = question('miss', [[{ file: 'car/a.pdf', page: 3 }]]);
  const falseRefusal = question('fr', [[{ file: 'car/a.pdf', page: 1 }]]);
  const unanswerable = question('u', [], false);
  const failed = question('err', [[{ file: 'car/a.pdf', page: 1 }]]);
  const questions = [hit, anyPage, miss, falseRefusal, unanswerable, failed];
  const records = [
    record(hit, answer([citation('car/a.pdf', 3)], false, 10)),
    record(anyPage, answer([citation('car/web.txt', 1)], false, 20)),
    record(miss, answer([citation('car/a.pdf', 4)], false, 30)),
    // A refusal whose closest clause is the gold page: counted only in the rate over all answerable.
    record(falseRefusal, answer([citation('car/a.pdf', 1)], true, 40)),
    record(unanswerable, answer([], true, 50)),
    record(failed, null, 'UNEXPECTED'),
  ];
  const m = scoreAnswers(records, questions);

  it('counts a cited gold page (page null = any page) among answers that did not refuse', () => {
    expect(m.answerable).toBe(4);
    expect(m.citationHitRate).toBeCloseTo(2 / 3);
    expect(m.citationHitRateAll).toBeCloseTo(3 / 4);
  });

  it('separates false refusals from refusals of unanswerable questions, and counts errors', () => {
    expect(m.falseRefusalRate).toBeCloseTo(1 / 4);
    expect(m.unanswerableRefusalRate).toBe(1);
    expect(m.errors).toBe(1);
  });

  it('credits a citation of a file indexed under another name (an identical copy)', () => {
    const aliased = scoreAnswers([record(miss, answer([citation('travel/a-copy.pdf', 3)], false, 1))], [miss], new Map([['travel/a-copy.pdf', 'car/a.pdf']]));
    expect(aliased.citationHitRate).toBe(1);
  });

  it('takes latency percentiles over answered questions', () => {
    expect(m.latency.p50).toBe(30);
    expect(m.latency.max).toBe(50);
    expect(percentile([], 95)).toBe(0);
  });
});
