import { describe, expect, it } from 'vitest';
import type { Answer, Citation, RankedPassage } from '../../../widget/answer/types.ts';
import type { EvalQuestion } from '../../../builder/eval/questions.ts';
import type { AnswerRecord } from '../../../builder/eval/browser/answer-metrics.ts';
import { answerBody, answerF1, tokenF1 } from '../../../builder/eval/browser/answer-overlap.ts';
import { citationProblem, pageTexts } from '../../../builder/eval/browser/citation-validity.ts';
import { retrievalRanks } from '../../../builder/eval/browser/retrieval.ts';
import { scoreQuestion } from '../../../builder/eval/browser/score-question.ts';
import { summarize, summarizeBy } from '../../../builder/eval/browser/summarize.ts';

const documents = [{ file: 'car/a.pdf' }, { file: 'car/b.pdf' }] as never[];
const chunks = [
  { doc: 0, page: 3, text: 'Windscreen replacement costs\n250 NIS   at a partner garage.' },
  { doc: 0, page: 3, text: 'A small crack is repaired free.' },
  { doc: 1, page: 1, text: 'Towing is covered up to 50 km.' },
];
const pages = pageTexts(documents, chunks);

const passage = (rank: number, file: string, page: number): RankedPassage => ({ rank, chunkId: `c${rank}`, file, page, score: 1 / rank, twin: null, pageTwin: null });
const cite = (file: string, page: number, quote: string): Citation => ({
  n: 1,
  chunkId: 'c',
  file,
  page,
  url: null,
  title: 't',
  sectionPath: [],
  clause: null,
  quote,
  alsoIn: [],
});
const answer = (o: Partial<Answer>): Answer => ({
  text: 'x',
  citations: [],
  mode: 'extractive',
  confidence: 'high',
  refused: false,
  refusal: null,
  domain: null,
  lang: 'en',
  searchedQuery: 'x',
  searchMode: 'bm25',
  retrieved: [],
  timings: { assess: 1, embed: 0, search: 2, grade: 1, generate: 1, ground: 1, total: 6 },
  ...o,
});
const question = (o: Partial<EvalQuestion>): EvalQuestion => ({
  id: 'q',
  question: 'How much is a windscreen?',
  domain: 'car',
  difficulty: 'easy',
  kind: null,
  answerable: true,
  facts: [[{ file: 'car/a.pdf', page: 3 }]],
  answers: ['250 NIS at a partner garage'],
  ...o,
});
const record = (q: EvalQuestion, a: Answer | null): AnswerRecord => ({
  id: q.id,
  question: q.question,
  domain: q.domain,
  difficulty: q.difficulty,
  answerable: q.answerable,
  answer: a,
  error: a ? null : 'BOOM',
});
const ctx = { k: 10, pages, aliases: new Map<string, string>() };

describe('retrieval ranks from the widget passages', () => {
  it('ranks distinct pages and files: a known hit and a known miss', () => {
    const a = answer({ retrieved: [passage(1, 'car/b.pdf', 1), passage(2, 'car/b.pdf', 1), passage(3, 'car/a.pdf', 3)] });
    expect(retrievalRanks(question({}), a, 10)).toMatchObject({ fileRank: 2, pageRank: 2 });
    expect(retrievalRanks(question({}), a, 1)).toMatchObject({ fileRank: null, pageRank: null });
    expect(retrievalRanks(question({ facts: [[{ file: 'car/c.pdf', page: 1 }]] }), a, 10).pageRank).toBeNull();
  });
  it('maps a gold ref named by a dropped copy to the kept file', () => {
    const a = answer({ retrieved: [passage(1, 'car/a.pdf', 3)] });
    const q = question({ facts: [[{ file: 'copy/a.pdf', page: 3 }]] });
    expect(retrievalRanks(q, a, 10, new Map([['copy/a.pdf', 'car/a.pdf']])).pageRank).toBe(1);
  });
});

describe('citation validity', () => {
  it('accepts a quote on its page despite re-flowed whitespace and " … " joins', () => {
    expect(citationProblem(cite('car/a.pdf', 3, 'costs 250 NIS at a partner garage.'), pages)).toBeNull();
    expect(citationProblem(cite('car/a.pdf', 3, 'costs 250 NIS … A small crack is repaired free.'), pages)).toBeNull();
  });
  it('names what is wrong with an invalid citation', () => {
    expect(citationProblem(cite('car/z.pdf', 3, 'x'), pages)).toBe('unknown-file');
    expect(citationProblem(cite('car/a.pdf', 9, 'x'), pages)).toBe('unknown-page');
    expect(citationProblem(cite('car/b.pdf', 1, 'costs 250 NIS'), pages)).toBe('quote-not-on-page');
  });
});

describe('answer overlap', () => {
  it('strips markers and the widget frame before scoring', () => {
    expect(answerBody('According to the policy documents:\n“250 NIS” [1]')).not.toMatch(/According|\[1\]/);
    expect(answerF1('According to the policy documents: “250 NIS at a partner garage” [1]', ['250 NIS at a partner garage'])).toBe(1);
  });
  it('is 0 with no common token and partial otherwise', () => {
    expect(tokenF1('towing', 'windscreen')).toBe(0);
    expect(tokenF1('windscreen 250', 'windscreen')).toBeCloseTo(2 / 3);
    expect(answerF1('x', [])).toBeNull();
  });
});

describe('question verdicts and summaries', () => {
  const hitQ = question({ id: 'hit' });
  const hit = scoreQuestion(
    record(hitQ, answer({ text: '“250 NIS at a partner garage” [1]', citations: [cite('car/a.pdf', 3, '250 NIS at a partner garage.')], retrieved: [passage(1, 'car/a.pdf', 3)] })),
    hitQ,
    ctx,
  );
  const missQ = question({ id: 'miss', question: 'מה ההשתתפות העצמית?' });
  const miss = scoreQuestion(record(missQ, answer({ citations: [cite('car/b.pdf', 1, 'Towing is covered')], retrieved: [passage(1, 'car/b.pdf', 1)] })), missQ, ctx);
  const refusedQ = question({ id: 'refused' });
  const refused = scoreQuestion(record(refusedQ, answer({ refused: true, refusal: 'no-passages', confidence: 'low' })), refusedQ, ctx);
  const unQ = question({ id: 'un', answerable: false, facts: [], answers: [] });
  const rightRefusal = scoreQuestion(record(unQ, answer({ refused: true, refusal: 'no-passages' })), unQ, ctx);
  const badQ = question({ id: 'bad' });
  const invalid = scoreQuestion(record(badQ, answer({ citations: [cite('car/a.pdf', 3, 'not in the policy')] })), badQ, ctx);
  const errored = scoreQuestion(record(question({ id: 'err' }), null), question({ id: 'err' }), ctx);
  const all = [hit, miss, refused, rightRefusal, invalid, errored];

  it('passes a known hit and names each failure', () => {
    expect(hit.failures).toEqual([]);
    expect(hit.f1).toBe(1);
    expect(miss.failures).toEqual(['no-gold-citation']);
    expect(miss.lang).toBe('he');
    expect(refused.failures).toEqual(['false-refusal']);
    expect(refused.f1).toBe(0);
    expect(rightRefusal.failures).toEqual([]);
    expect(invalid.failures).toEqual(['invalid-citation']);
    expect(errored.failures).toEqual(['error']);
  });

  it('summarizes retrieval, citations, refusals and latency', () => {
    const s = summarize(all);
    expect(s.answerable).toBe(5);
    expect(s.retrieval.page['hit@1']).toBeCloseTo(1 / 5);
    expect(s.retrieval.file.mrr).toBeCloseTo(1 / 5);
    expect(s.citations.validity).toBeCloseTo(2 / 3);
    expect(s.citations.hitRate).toBeCloseTo(2 / 3); // hit and the invalid one cite a gold page, miss does not
    expect(s.refusals.falseRefusalRate).toBeCloseTo(1 / 5);
    expect(s.refusals.unanswerableRefusalRate).toBe(1);
    // Two refusals, neither with the off-topic reply; one more that is.
    expect(s.refusals.offTopicRate).toBe(0);
    const offTopic = scoreQuestion(record(unQ, answer({ refused: true, refusal: 'off-topic', confidence: 'low' })), unQ, ctx);
    expect(summarize([...all, offTopic]).refusals.offTopicRate).toBeCloseTo(1 / 7);
    expect(s.passRate).toBeCloseTo(2 / 6);
    expect(s.latency.total.p50).toBe(6);
    expect(Object.keys(summarizeBy(all, (r) => r.lang))).toEqual(['en', 'he']);
  });
});
