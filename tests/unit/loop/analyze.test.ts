import { describe, expect, it } from 'vitest';
import type { ChatTurn } from '../../../widget/answer/types.ts';
import type { RouteResult } from '../../../widget/core/retrieval/route.ts';
import { analyzeQuestion, followUpSignal } from '../../../widget/loop/analyze.ts';
import { routerTopicFit, TOPIC_FIT_MIN_CONFIDENCE } from '../../../widget/loop/topic-fit.ts';
import { readText } from '../../../widget/text/question-reading.ts';

const user = (text: string): ChatTurn => ({ role: 'user', text, at: 0 });

/** A router that knows a few words per domain, with the posteriors the real one gives such words. */
const WORDS: Record<string, [string, number]> = {
  רכב: ['car', 0.87],
  car: ['car', 0.31],
  חלופי: ['car', 0.82],
  ניתוח: ['health', 0.53],
  בריאות: ['health', 0.99],
  מזג: ['travel', 0.86],
  חו: ['travel', 0.42],
  abroad: ['travel', 0.26],
  דירה: ['apartment', 0.7],
  mortgage: ['mortgage', 0.18],
};
const routed: string[] = [];
async function fakeRoute(query: string): Promise<RouteResult> {
  routed.push(query);
  const hit = Object.entries(WORDS).find(([w]) => query.includes(w));
  if (!hit) return { domain: null, confidence: 0, scores: [] };
  const [domain, confidence] = hit[1];
  return { domain, confidence, scores: [{ domain, score: confidence }] };
}
const fitsPreviousTopic = routerTopicFit(fakeRoute);
const analyze = (q: string, history: ChatTurn[]) => analyzeQuestion(q, history, { fitsPreviousTopic });

const HEALTH = [user('האם ביטוח הבריאות מכסה ניתוח בחו"ל?')];
const CAR = [user('מה ההשתתפות העצמית בביטוח רכב?')];
const CAR_EN = [user('Is my car covered for theft?')];

describe('analyze: a topic change is not a follow-up', () => {
  it('searches a short question on a new topic as typed', async () => {
    for (const [q, history] of [
      ['מה מזג האוויר מחר?', HEALTH],
      ['מזג האוויר?', HEALTH],
      ['who won the game yesterday?', CAR_EN],
      ['מה זה ביטקוין?', CAR],
      ['is it going to rain this weekend?', CAR_EN],
      ['thanks!', CAR_EN],
      ['מה הבירה של אוסטרליה?', CAR],
      // A pronoun whose antecedent is the question's own first clause, and an idiom's "it".
      ['my computer is slow, how do I clean it up?', CAR_EN],
      ['המחשב שלי איטי, איך מנקים אותו?', CAR],
      ["good evening, how's it going?", CAR_EN],
    ] as const) {
      const a = await analyze(q, [...history]);
      expect(a, q).toMatchObject({ followUp: false, followUpSignal: null, searchQuery: q });
    }
  });

  it('needs real router evidence for the previous domain, not a brush with it', async () => {
    // "mortgage" routes to mortgage but below the evidence limit; "car?" routes to car, not health.
    expect(TOPIC_FIT_MIN_CONFIDENCE).toBeGreaterThan(0.18);
    expect(await fitsPreviousTopic('mortgage?', 'mortgage rates')).toBe(false);
    expect(await fitsPreviousTopic('car?', 'האם ביטוח הבריאות מכסה ניתוח?')).toBe(false);
    expect(await fitsPreviousTopic('car?', 'Is my car covered for theft?')).toBe(true);
  });
});

describe('analyze: real follow-ups', () => {
  it('a follow-up that names no new subject narrows the previous question: its words, then the follow-up’s, the opener dropped', async () => {
    for (const [q, signal, own] of [
      ['ומה לגבי מזג האוויר?', 'continuation', 'מזג האוויר?'],
      ['ומה עם ילדים?', 'continuation', 'ילדים?'],
      ['כמה זה עולה?', 'reference', 'כמה זה עולה?'],
      ['מה זה כולל?', 'reference', 'מה זה כולל?'],
    ] as const) {
      const a = await analyze(q, [user('מה ההשתתפות העצמית בביטוח דירה?')]);
      expect(a, q).toMatchObject({ followUp: true, followUpSignal: signal, question: q });
      expect(a.searchQuery, q).toBe(`ההשתתפות העצמית בביטוח דירה ${own}`);
    }
    const en = await analyze('and for abroad?', [user('Is my luggage covered on a trip?')]);
    expect(en).toMatchObject({ followUp: true, followUpSignal: 'continuation' });
    expect(en.searchQuery).toBe('luggage covered trip for abroad?');
    expect((await analyze('is that covered abroad?', CAR_EN)).followUpSignal).toBe('reference');
  });

  it('a follow-up that names another insurance re-asks the previous question about it, in either language', async () => {
    for (const [before, q, asked] of [
      ['מה ההשתתפות העצמית בביטוח דירה?', 'ומה לגבי רכב?', 'מה ההשתתפות העצמית בביטוח רכב?'],
      ['מה ההשתתפות העצמית בביטוח דירה?', 'ומה עם ביטוח רכב?', 'מה ההשתתפות העצמית בביטוח רכב?'],
      ['כמה זמן יש לי להגיש תביעה בביטוח נסיעות?', 'ולבריאות?', 'כמה זמן יש לי להגיש תביעה בביטוח לבריאות?'],
      ['What is the deductible for home insurance?', 'And for the car?', 'What is the deductible for car insurance?'],
      ['What is the excess for home insurance?', 'what about travel insurance?', 'What is the excess for travel insurance?'],
      ['How soon must I report a home insurance claim?', 'and for a car too?', 'How soon must I report a car insurance claim?'],
    ] as const) {
      const a = await analyze(q, [user(before)]);
      expect(a, q).toMatchObject({ question: q, followUp: true, followUpSignal: 'continuation', searchQuery: asked });
    }
    // The re-asked question is what the next follow-up leans on.
    const history: ChatTurn[] = [user('ומה לגבי רכב?'), { role: 'assistant', text: '…', at: 1, answer: { searchedQuery: 'מה ההשתתפות העצמית בביטוח רכב?' } as ChatTurn['answer'] }];
    expect((await analyze('ומה לגבי ביטוח נסיעות?', history)).searchQuery).toBe('מה ההשתתפות העצמית בביטוח נסיעות?');
  });

  it('a bare ellipsis follows up when its words fit: insurance words, or the router’s domain', async () => {
    const deductible = await analyze('השתתפות עצמית?', CAR);
    expect(deductible).toMatchObject({ followUp: true, followUpSignal: 'ellipsis' });
    expect(deductible.searchQuery).toMatch(/רכב.*השתתפות עצמית\?$/);
    routed.length = 0;
    const car = await analyze('רכב חלופי?', CAR);
    expect(car).toMatchObject({ followUp: true, followUpSignal: 'ellipsis' });
    expect(routed).toEqual(['רכב חלופי?', CAR[0].text]);
    expect((await analyze('רכב חלופי?', HEALTH)).followUp).toBe(false);
    expect((await analyze('why?', CAR_EN)).followUpSignal).toBe('ellipsis');
    // Without a router only insurance words make an ellipsis fit.
    expect((await analyzeQuestion('רכב חלופי?', CAR)).followUp).toBe(false);
    expect((await analyzeQuestion('השתתפות עצמית?', CAR)).followUp).toBe(true);
  });

  it('uses the previous answer’s searched query, and leaves long or first questions alone', async () => {
    const history: ChatTurn[] = [user('ומה לגבי רכב?'), { role: 'assistant', text: '…', at: 1, answer: { searchedQuery: 'השתתפות עצמית ומה לגבי רכב?' } as ChatTurn['answer'] }];
    expect((await analyze('ולאופנוע?', history)).searchQuery).toContain('השתתפות');
    expect(await followUpSignal(readText('האם ביטוח הנסיעות מכסה ביטול טיסה בגלל מחלה של בן משפחה?'), 'מה ההשתתפות העצמית?')).toBeNull();
    expect((await analyze('ומה לגבי רכב?', [])).followUp).toBe(false);
  });
});

describe('analyze: the answer language is the question’s', () => {
  it('detects it by script, whatever the interface language', async () => {
    expect((await analyzeQuestion('מה ההשתתפות העצמית?', [])).lang).toBe('he');
    expect((await analyzeQuestion('What is the deductible?', [], { interfaceLang: 'he' })).lang).toBe('en');
    expect((await analyzeQuestion('מה ההשתתפות העצמית?', [], { interfaceLang: 'en' })).lang).toBe('he');
  });

  it('falls back to the interface language for a question with no letters', async () => {
    expect((await analyzeQuestion('5000?', [], { interfaceLang: 'en' })).lang).toBe('en');
    expect((await analyzeQuestion('5000?', [], { interfaceLang: 'he' })).lang).toBe('he');
  });
});
