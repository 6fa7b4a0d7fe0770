import { describe, expect, it } from 'vitest';
import { aggregate, fileRank, pageRank, scoreQuestion } from '../../../builder/eval/metrics.ts';
import { parseQuestions } from '../../../builder/eval/questions.ts';
import type { EvalQuestion } from '../../../builder/eval/questions.ts';

const ranked = [
  { file: 'a.pdf', page: 3 },
  { file: 'b.pdf', page: 1 },
  { file: 'a.pdf', page: 7 },
  { file: 'c.txt', page: 1 },
];

const question = (facts: EvalQuestion['facts']): EvalQuestion => ({
  id: 'q',
  question: '?',
  domain: 'car',
  difficulty: 'easy',
  kind: null,
  answerable: true,
  facts,
  answers: [],
});

describe('ranks', () => {
  it('finds a known page hit at its rank among distinct pages', () => {
    expect(pageRank([{ file: 'a.pdf', page: 7 }], ranked)).toBe(3);
  });

  it('counts files once: a.pdf then b.pdf then c.txt', () => {
    expect(fileRank([{ file: 'c.txt', page: null }], ranked)).toBe(3);
    expect(fileRank([{ file: 'a.pdf', page: 99 }], ranked)).toBe(1);
  });

  it('treats page null as any page of the file', () => {
    expect(pageRank([{ file: 'b.pdf', page: null }], ranked)).toBe(2);
  });

  it('reports a miss as null', () => {
    expect(pageRank([{ file: 'a.pdf', page: 4 }], ranked)).toBeNull();
    expect(fileRank([{ file: 'z.pdf', page: null }], ranked)).toBeNull();
  });

  it('scores a question by its first fact, any of its refs', () => {
    const q = question([
      [
        { file: 'z.pdf', page: 1 },
        { file: 'c.txt', page: null },
      ],
      [{ file: 'a.pdf', page: 3 }],
    ]);
    expect(scoreQuestion(q, ranked)).toEqual({ id: 'q', fileRank: 3, pageRank: 4 });
  });
});

describe('aggregate', () => {
  it('computes hit@k and MRR', () => {
    const m = aggregate([1, 3, null, 7]);
    expect(m['hit@1']).toBe(0.25);
    expect(m['hit@5']).toBe(0.5);
    expect(m['hit@10']).toBe(0.75);
    expect(m.mrr).toBeCloseTo((1 + 1 / 3 + 1 / 7) / 4, 10);
  });
});

describe('question files', () => {
  it('reads the harel shape, unanswerable questions included', () => {
    const qs = parseQuestions(
      [
        { id: 'x', domain: 'car', difficulty: 'easy', answerable: true, question: 'מה?', ground_truth_answer: 'זה', ground_truth_sources: [{ any_of: [{ file: 'car/a.pdf', page: 2 }] }] },
        { id: 'y', domain: 'car', answerable: false, question: 'למה?', ground_truth_sources: [] },
      ],
      'dev.json',
    );
    expect(qs[0].facts).toEqual([[{ file: 'car/a.pdf', page: 2 }]]);
    expect(qs[1].answerable).toBe(false);
  });

  it('reads SQuAD 2.0: each question targets its own paragraph', () => {
    const qs = parseQuestions(
      {
        data: [
          {
            title: 't',
            paragraphs: [
              { context: 'c0', qas: [] },
              {
                context: 'c1',
                qas: [
                  { id: 'a', question: 'q', answers: [{ text: 'x', answer_start: 0 }] },
                  { id: 'b', question: 'q2', is_impossible: true, answers: [] },
                ],
              },
            ],
          },
        ],
      },
      'heq.json',
    );
    expect(qs).toHaveLength(2);
    expect(qs[0].facts).toEqual([[{ file: 'squad/0/1', page: null }]]);
    expect(qs[1].answerable).toBe(false);
  });

  it('rejects an unknown shape with a code', () => {
    expect(() => parseQuestions({ foo: 1 }, 'x.json')).toThrowError(/question file/);
  });
});

describe('lenient ranks (twins of gold pages count)', () => {
  const twins = {
    page: (file: string, page: number) => ((file === 'b.pdf' && page === 1) || (file === 'gold.pdf' && page === 4) ? 7 : -1),
    fileGroups: (file: string) => new Set(file === 'gold.pdf' ? [7] : file === 'b.pdf' ? [7] : []),
  };

  it('credits a twin page where the strict rank misses', async () => {
    const { lenientPageRank, lenientFileRank } = await import('../../../builder/eval/metrics.ts');
    const fact = [{ file: 'gold.pdf', page: 4 }];
    expect(pageRank(fact, ranked)).toBeNull();
    expect(lenientPageRank(fact, ranked, twins)).toBe(2);
    expect(lenientFileRank(fact, ranked, twins)).toBe(2);
  });

  it('does not credit a page without a twin', async () => {
    const { lenientPageRank } = await import('../../../builder/eval/metrics.ts');
    expect(lenientPageRank([{ file: 'gold.pdf', page: 5 }], ranked, twins)).toBeNull();
  });
});
