import { describe, expect, it } from 'vitest';
import { confidenceTier, withCaveat } from '../../../widget/loop/confidence.ts';
import { answerSegments, plainAnswerText } from '../../../widget/answer/document-text.ts';
import { broaderRequest, offTopicReply, offTopicText, refusalWithClosest } from '../../../widget/loop/fallback.ts';
import { gradeFeatures, gradePassages } from '../../../widget/loop/grade.ts';
import { groundAnswer } from '../../../widget/loop/ground.ts';
import { routedDomain } from '../../../widget/loop/retrieve.ts';
import { mentionsInsurance } from '../../../widget/text/insurance-words.ts';
import { contentWords } from '../../../widget/text/terms.ts';
import { splitSentences } from '../../../widget/text/sentences.ts';
import { transition } from '../../../widget/loop/machine.ts';
import type { SearchResponse } from '../../../widget/search/search-service.ts';
import { passage } from './helpers.ts';

describe('sentences', () => {
  it('keeps clause numbers, sums and gershayim abbreviations inside sentences', () => {
    const text = 'הראל חברה לביטוח בע"מ מספקת כיסוי. ההשתתפות היא 1,200.50 ש"ח לכל מקרה. 4.1 המבטח ישלם לפי סעיף 3.2.4 בפוליסה.\nראו e.g. the schedule. ת.ז. של המבוטח נדרשת.';
    expect(splitSentences(text)).toEqual([
      'הראל חברה לביטוח בע"מ מספקת כיסוי.',
      'ההשתתפות היא 1,200.50 ש"ח לכל מקרה.',
      '4.1 המבטח ישלם לפי סעיף 3.2.4 בפוליסה.',
      'ראו e.g. the schedule.',
      'ת.ז. של המבוטח נדרשת.',
    ]);
    expect(splitSentences('1. הגדרות\nא. המבוטח: מי ששמו נקוב.')).toEqual(['1. הגדרות', 'א. המבוטח: מי ששמו נקוב.']);
  });
});

function response(route: { domain: string | null; confidence: number } | null, n = 1): SearchResponse {
  return {
    result: {
      query: 'q',
      mode: 'bm25',
      route: route && { ...route, scores: [] },
      domainFilter: route?.confidence && route.confidence > 0.97 ? route.domain : null,
      expansions: [],
      termStats: { chunks: 1, df: {} },
    },
    passages: Array.from({ length: n }, () => passage('טקסט')),
    timings: { embed: 0, search: 1 },
  };
}

describe('the routed domain, insurance words, the off-topic reply', () => {
  it('reports the fixed domain, else the router’s', () => {
    expect(routedDomain(response({ domain: 'car', confidence: 0.8 }))).toBe('car');
    expect(routedDomain(response({ domain: 'car', confidence: 0.8 }), 'travel')).toBe('travel');
    expect(routedDomain(response(null))).toBeNull();
  });

  it('knows a question that names insurance, in either language and with Hebrew prefixes', () => {
    expect(mentionsInsurance('מה ההשתתפות העצמית בביטוח לאופנוע ים?')).toBe(true);
    expect(mentionsInsurance('Is a drone covered by my policy?')).toBe(true);
    expect(mentionsInsurance('מה מזג האוויר מחר?')).toBe(false);
    expect(mentionsInsurance("what's the weather tomorrow?")).toBe(false);
  });

  it('answers off-topic questions in the question’s language with the contact channels the site set', () => {
    const contacts = { name: { he: 'דמו ביטוח', en: 'Demo Insurance' }, phone: '03-1234567', website: 'https://demo-insurance.example' };
    expect(offTopicText('he', contacts)).toMatch(/דמו ביטוח.*03-1234567.*demo-insurance\.example/);
    expect(offTopicText('en', contacts)).toMatch(/Demo Insurance.*03-1234567.*demo-insurance\.example/);
    // Small talk is answered in kind, anything else off-topic gets the channels.
    expect(offTopicReply('he', 'greeting', contacts)).not.toBe(offTopicText('he', contacts));
    expect(offTopicReply('en', 'thanks', contacts)).not.toBe(offTopicReply('en', 'greeting', contacts));
    expect(offTopicReply('en', 'arithmetic', contacts)).toBe(offTopicText('en', contacts));
  });
});

describe('grade', () => {
  const question = 'מה ההשתתפות העצמית בנזקי מים?';
  const relevant = passage('ההשתתפות העצמית בנזקי מים היא 850 ש"ח לכל מקרה.', { score: 12 });
  const other = passage('הפוליסה מכסה גניבת תכשיטים עד 20,000 ש"ח.', { score: 6, chunkId: 'other', sectionPath: ['תכשיטים'] });

  it('scores coverage of the question’s words, normalised, higher for the passage that answers', () => {
    const [a, b] = gradeFeatures(contentWords(question), [relevant, other]);
    expect(a.coverage).toBeGreaterThan(0.9);
    expect(b.coverage).toBeLessThan(0.2);
    expect(a.relevance).toBeGreaterThan(b.relevance);
    expect(a.relevance).toBeLessThanOrEqual(1);
  });

  it('keeps by threshold without an LLM, and asks the engine in one batch when it can grade', async () => {
    const byThreshold = await gradePassages(question, [relevant, other], {});
    expect(byThreshold.method).toBe('threshold');
    expect(byThreshold.kept.map((k) => k.passage.chunkId)).toEqual([relevant.chunkId]);
    let calls = 0;
    const llm = await gradePassages(question, [relevant, other], { gradePassages: async (_q, ps) => (calls++, ps.map(() => true)) });
    expect(llm.method).toBe('llm');
    expect(calls).toBe(1);
    expect(llm.kept).toHaveLength(2);
  });
});

describe('ground', () => {
  const sources = [passage('ההשתתפות העצמית בנזקי מים היא 850 ש"ח לכל מקרה ביטוח.')];

  it('supports a sentence whose words are in the passage it cites, not one from elsewhere', async () => {
    const result = await groundAnswer('ההשתתפות העצמית בנזקי מים היא 850 ש"ח [1]. הפוליסה מכסה גם רעידת אדמה ושיטפון [1].', sources, {});
    expect(result.method).toBe('lexical');
    expect(result.sentences.map((s) => s.supported)).toEqual([true, false]);
    expect(result.fraction).toBe(0.5);
  });

  it('counts an uncited claim as unsupported, skips lead-ins, and asks the LLM once when it can check', async () => {
    expect((await groundAnswer('ההשתתפות העצמית בנזקי מים היא 850 ש"ח.', sources, {})).fraction).toBe(0);
    const extractive = await groundAnswer('לפי מסמכי הפוליסה:\n“ההשתתפות העצמית בנזקי מים היא 850 ש"ח לכל מקרה ביטוח.” [1]', sources, {});
    expect(extractive.sentences).toHaveLength(1);
    expect(extractive.fraction).toBe(1);
    const llm = await groundAnswer('משהו אחר לגמרי על רכב [1].', sources, { checkSupport: async (claims) => claims.map(() => true) });
    expect(llm.method).toBe('llm');
    expect(llm.fraction).toBe(1);
  });
});

describe('confidence tiers', () => {
  const strong = { refuse: false, high: true };
  const weak = { refuse: false, high: false };
  const unanswerable = { refuse: true, high: false };
  it('high, medium and low from grounding and the answerability assessment', () => {
    expect(confidenceTier({ kept: 3, cited: true, groundedFraction: 1, assessment: strong })).toBe('high');
    expect(confidenceTier({ kept: 3, cited: true, groundedFraction: 1, assessment: weak })).toBe('medium');
    expect(confidenceTier({ kept: 3, cited: true, groundedFraction: 0.6, assessment: strong })).toBe('medium');
    expect(confidenceTier({ kept: 3, cited: true, groundedFraction: 0.4, assessment: strong })).toBe('low');
    expect(confidenceTier({ kept: 3, cited: false, groundedFraction: 1, assessment: strong })).toBe('low');
    expect(confidenceTier({ kept: 0, cited: true, groundedFraction: 1, assessment: strong })).toBe('low');
  });

  it('refuses on evidence without a model, and leaves that judgement to an LLM that graded', () => {
    expect(confidenceTier({ kept: 3, cited: true, groundedFraction: 1, assessment: unanswerable })).toBe('refuse');
    expect(confidenceTier({ kept: 3, cited: true, groundedFraction: 1, assessment: unanswerable, llmGraded: true })).toBe('medium');
    // A mechanical failure stays "low" (retried), not a refusal on evidence.
    expect(confidenceTier({ kept: 3, cited: false, groundedFraction: 0, assessment: unanswerable })).toBe('low');
  });

  it('adds the caveat in the question’s language', () => {
    expect(withCaveat('תשובה [1]', 'he')).toMatch(/^תשובה \[1\]\n\nשימו לב/);
    expect(withCaveat('Answer [1]', 'en')).toContain('Note:');
  });
});

describe('fallback', () => {
  it('broadens the retry: no routing, higher expansion weight', () => {
    const r = broaderRequest({ query: 'q', domain: null, k: 10 });
    expect(r.route).toBe(false);
    expect(r.expansionWeight).toBeGreaterThan(0.3);
  });

  it('refuses in the question’s language with the closest clauses and their citations', () => {
    const candidates = [passage('סעיף על נזקי מים בדירה.', { chunkId: 'a', page: 2 }), passage('סעיף אחר על גניבה.', { chunkId: 'b', page: 5 })].map((p, i) => ({
      passage: p,
      relevance: 0.2 - i * 0.1,
      coverage: 0.1,
      kept: false,
    }));
    const he = refusalWithClosest('he', 'נזקי מים', candidates);
    expect(he.text).toContain('לא מצאתי תשובה חד-משמעית במסמכי הפוליסה');
    expect(he.citations.map((c) => c.n)).toEqual([1, 2]);
    expect(he.text).toContain('[2]');
    expect(refusalWithClosest('en', 'water', []).text).toBe('I cannot find a definitive answer in the policy documents.');
  });

  it('keeps a document’s own bracketed numbers as text in the closest clauses: only the engine’s markers cite', () => {
    const candidates = [passage('סעיף [1] על נזקי מים בדירה [99].', { chunkId: 'a', page: 2 })].map((p) => ({ passage: p, relevance: 0.2, coverage: 0.1, kept: false }));
    const refusal = refusalWithClosest('he', 'נזקי מים', candidates);
    const engineText = answerSegments(refusal.text)
      .filter((s) => s.kind === 'engine')
      .map((s) => s.text)
      .join('');
    expect(engineText.match(/\[\d+\]/g)).toEqual(['[1]']);
    expect(plainAnswerText(refusal.text)).toContain('סעיף [1] על נזקי מים בדירה [99].');
  });
});

describe('transition', () => {
  const facts = { offTopic: false, kept: 1, grounded: true, retried: false, notAnswerable: false };
  it('routes the loop through one retry, then the fallback', () => {
    expect(transition('analyze', facts)).toBe('retrieve');
    expect(transition('retrieve', facts)).toBe('assess');
    expect(transition('assess', { ...facts, offTopic: true })).toBe('fallback');
    expect(transition('assess', facts)).toBe('grade');
    expect(transition('grade', { ...facts, kept: 0 })).toBe('retry');
    expect(transition('grade', { ...facts, kept: 0, retried: true })).toBe('fallback');
    expect(transition('retry', facts)).toBe('retrieve');
    // Grounding always hands over to the score step, which decides.
    expect(transition('ground', { ...facts, grounded: false })).toBe('score');
    expect(transition('score', { ...facts, grounded: false })).toBe('retry');
    expect(transition('score', { ...facts, grounded: false, retried: true })).toBe('fallback');
    // A grounded answer passes the read step (the reader, where the page has one) before it is done.
    expect(transition('score', facts)).toBe('read');
    expect(transition('read', facts)).toBe('done');
    // A refusal on evidence is final: a broader search would find more of the same.
    expect(transition('score', { ...facts, grounded: false, notAnswerable: true })).toBe('fallback');
    expect(transition('fallback', facts)).toBe('done');
  });
});
