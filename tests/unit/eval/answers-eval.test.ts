import { describe, expect, it } from 'vitest';
import type { Answer, Citation } from '../../../widget/answer/types.ts';
import { expectedNumbers, statedNumbers } from '../../../builder/eval/answer-numbers.ts';
import { answerLead, readAnswer, splitHalves, summarizeAnswers } from '../../../builder/eval/answers-eval.ts';
import type { TwinLookup } from '../../../builder/eval/metrics.ts';
import type { EvalQuestion } from '../../../builder/eval/questions.ts';

const numbers = (text: string) => [...statedNumbers(text)].sort();

describe('statedNumbers', () => {
  it('normalises separators, currency and number words to one spelling', () => {
    expect(numbers('1,000 ש"ח')).toEqual(['1000']);
    expect(numbers('₪1000')).toEqual(['1000']);
    expect(numbers('אלף שקלים')).toEqual(['1000']);
    expect(numbers('1.5 מיליון ש"ח')).toEqual(['1500000']);
    expect(numbers('10 אלף ש״ח')).toEqual(['10000']);
    expect(numbers('שמונה עשרה שנים')).toEqual(['18']);
    expect(numbers('80%')).toEqual(['80']);
    expect(numbers('טון 3.5 משבעה שמאים')).toEqual(['3.5', '7']);
  });

  it('reads a phone number, a star code and a date as one number each, a range as two', () => {
    expect(numbers('התקשרו 03-7348102')).toEqual(['037348102']);
    expect(numbers('*2735')).toEqual(['2735']);
    expect(numbers('1-700-70-28-70')).toEqual(['17007028' + '70']);
    expect(numbers('עד 15.12.2022')).toEqual(['15.12.2022']);
    expect(numbers('3-5 ימים')).toEqual(['3', '5']);
  });

  it('leaves out clause and page references, clause numbers and citation markers', () => {
    expect(numbers('לפי סעיף 2.1 [1], ראו עמוד 4')).toEqual([]);
    expect(numbers('כמפורט ב-3.2.4')).toEqual([]);
    expect(numbers('השתתפות עצמית 850 ש"ח [2]')).toEqual(['850']);
  });

  it('does not count a lone "one"', () => {
    expect(numbers('אחד מהכיסויים')).toEqual([]);
  });
});

describe('expectedNumbers', () => {
  it('drops the numbers the question itself holds', () => {
    expect([...expectedNumbers('מגיל 60 ההשתתפות היא 1,500 ש"ח', 'מה ההשתתפות מגיל 60?')]).toEqual(['1500']);
  });
});

describe('answerLead', () => {
  it('is what stands before the quotes, their frame left out', () => {
    expect(answerLead('השתתפות עצמית: 850 ש"ח [1]\nלפי מסמכי הפוליסה:\n“משפט [1]”')).toBe('השתתפות עצמית: 850 ש"ח [1]');
    expect(answerLead('לפי מסמכי הפוליסה:\n“משפט 900 ש"ח [1]”')).toBe('');
    expect(answerLead('לא מצאתי תשובה חד-משמעית במסמכי הפוליסה.\n\nהסעיפים הקרובים ביותר שמצאתי:\n• “עד 900 ש"ח” [1]')).toBe('לא מצאתי תשובה חד-משמעית במסמכי הפוליסה.');
    expect(answerLead('Not covered — a policy exclusion [1], according to the policy documents:\n“…” [1]')).toBe('Not covered — a policy exclusion [1]');
  });
});

describe('splitHalves', () => {
  it('is seeded, exact in size, and does not depend on the order of the file', () => {
    const ids = Array.from({ length: 21 }, (_, i) => `q${i}`);
    const a = splitHalves(ids);
    const b = splitHalves([...ids].reverse());
    expect([...a.entries()].sort()).toEqual([...b.entries()].sort());
    expect([...a.values()].filter((h) => h === 'tune')).toHaveLength(11);
    const other = splitHalves(ids, 7);
    expect([...other.entries()].sort()).not.toEqual([...a.entries()].sort());
  });
});

const noTwins: TwinLookup = { page: () => -1, fileGroups: () => new Set() };

function citation(n: number, file: string, page: number): Citation {
  return { n, chunkId: `${file}-${page}`, file, page, url: null, title: file, sectionPath: [], clause: null, quote: '', alsoIn: [] };
}

function answer(text: string, citations: Citation[]): Answer {
  return {
    text,
    citations,
    mode: 'extractive',
    confidence: 'high',
    refused: false,
    refusal: null,
    domain: null,
    lang: 'he',
    searchedQuery: '',
    searchMode: 'bm25',
    retrieved: [],
    timings: { assess: 0, embed: 0, search: 0, grade: 0, generate: 0, ground: 0, total: 0 },
  };
}

const question: EvalQuestion = {
  id: 'q1',
  question: 'מה ההשתתפות העצמית בנזק לשמשה?',
  domain: 'car',
  difficulty: null,
  kind: null,
  answerable: true,
  facts: [[{ file: 'car/a.pdf', page: 3 }]],
  answers: ['ההשתתפות העצמית היא 850 ש"ח, ו-1,200 ש"ח במוסך שאינו בהסדר.'],
};

describe('readAnswer', () => {
  it('says which expected numbers the lead and the whole answer show, and whether the lead cites a page that answers', () => {
    const text = 'השתתפות עצמית: 850 ש"ח [1]\nלפי מסמכי הפוליסה:\n“במוסך שאינו בהסדר 1,200 ש"ח, ובשמשה 400 ש"ח [2]”';
    const r = readAnswer(question, answer(text, [citation(1, 'car/a.pdf', 3), citation(2, 'car/b.pdf', 1)]), { aliases: new Map(), twins: noTwins });
    expect(r.expected.sort()).toEqual(['1200', '850']);
    expect(r.inLead).toEqual(['850']);
    expect(r.inAnswer.sort()).toEqual(['1200', '850']);
    expect(r.shown).toBe(3);
    expect(r.leadCitesGold).toBe(true);
    expect(r.citesGold).toBe(true);
    const s = summarizeAnswers([r]);
    expect(s).toMatchObject({ numeric: 1, leadAll: 0, leadHalf: 1, answerAll: 1, answerHalf: 1, highNumeric: 1, highNumericAll: 1 });
  });

  it('a lead citing another page is out of scope, and an answer opening with its quotes has no lead', () => {
    const wrong = readAnswer(question, answer('השתתפות עצמית: 850 ש"ח [1]\nלפי מסמכי הפוליסה:\n“…”', [citation(1, 'car/b.pdf', 1)]), { aliases: new Map(), twins: noTwins });
    expect(wrong.leadCitesGold).toBe(false);
    const none = readAnswer(question, answer('לפי מסמכי הפוליסה:\n“850 ש"ח [1]”', [citation(1, 'car/a.pdf', 3)]), { aliases: new Map(), twins: noTwins });
    expect(none.lead).toBe('');
    expect(none.leadCitesGold).toBeNull();
    expect(none.inLead).toEqual([]);
    expect(none.inAnswer).toEqual(['850']);
  });
});
