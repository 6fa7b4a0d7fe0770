import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Answer, ChatTurn } from '../../../widget/answer/types.ts';
import type { AnswerEngine } from '../../../widget/engines/engine.ts';
import { ExtractiveEngine } from '../../../widget/engines/extractive.ts';
import { runAnswerLoop, type LoopState } from '../../../widget/loop/machine.ts';
import type { LocalSearchService } from '../../../widget/search/local-search-service.ts';
import { buildDemoIndex } from './helpers.ts';

let search: LocalSearchService;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ search, cleanup } = await buildDemoIndex());
});
afterAll(() => cleanup?.());

const engine = new ExtractiveEngine();

/** The conversation after `question` was answered `answer`. */
function turns(question: string, answer: Answer): ChatTurn[] {
  return [
    { role: 'user', text: question, at: 0 },
    { role: 'assistant', text: answer.text, answer, at: 1 },
  ];
}

function expectComplete(a: Answer): void {
  for (const key of ['assess', 'embed', 'search', 'grade', 'generate', 'ground', 'total'] as const) expect(a.timings[key]).toBeGreaterThanOrEqual(0);
  expect(a.timings.total).toBeGreaterThan(0);
  expect(a.searchMode).toBe('bm25');
  expect(a.retrieved.length).toBeGreaterThan(0);
}

describe('runAnswerLoop (demo index, extractive engine)', () => {
  it('answers a Hebrew question with a quote from the right page, passing through every step', async () => {
    const states: LoopState[] = [];
    const texts: string[] = [];
    const a = await runAnswerLoop(
      { question: 'כמה השתתפות עצמית אשלם על החלפת שמשה קדמית במרכז שמשות שבהסדר?', history: [] },
      { search, engine },
      { onState: (s) => states.push(s), onText: (t) => texts.push(t) },
    );
    expectComplete(a);
    expect(a).toMatchObject({ mode: 'extractive', refused: false, refusal: null, lang: 'he', domain: 'car' });
    expect(a.confidence).not.toBe('low');
    expect(a.text).toContain('250');
    expect(a.citations[0].file).toMatch(/^car\//);
    expect(a.citations.map((c) => c.n)).toEqual(a.citations.map((_, i) => i + 1));
    expect(states.slice(0, 3)).toEqual(['analyze', 'retrieve', 'assess']);
    expect(states).toContain('generate');
    expect(states.at(-1)).toBe('done');
    expect(texts.at(-1)).toBe(a.text);
  });

  it('answers in English, and a follow-up searches with the previous question', async () => {
    const first = await runAnswerLoop({ question: 'How soon must I report a home insurance claim?', history: [] }, { search, engine });
    expect(first.lang).toBe('en');
    expect(first.refused).toBe(false);
    expect(first.citations.length).toBeGreaterThan(0);
    const follow = await runAnswerLoop(
      {
        question: 'and for a car?',
        history: [
          { role: 'user', text: 'How soon must I report a home insurance claim?', at: 0 },
          { role: 'assistant', text: first.text, answer: first, at: 1 },
        ],
      },
      { search, engine },
    );
    // It names another insurance than the question before it: that question, asked about the car.
    expect(follow.searchedQuery).toBe('How soon must I report a car insurance claim?');
  });

  it('meets an off-topic question with the contact channels, in its language', async () => {
    const contacts = { name: { he: 'דמו', en: 'Demo' }, phone: '*1234', website: 'https://demo.example' };
    const he = await runAnswerLoop({ question: 'מי ניצח במשחק אתמול?', history: [] }, { search, engine, contacts });
    expect(he).toMatchObject({ refused: true, refusal: 'off-topic', confidence: 'low', citations: [] });
    expect(he.text).toContain('*1234');
    // An English question on a Hebrew interface is answered in English; no contacts, no insurer named.
    const en = await runAnswerLoop({ question: "what's the weather tomorrow", history: [], lang: 'he' }, { search, engine });
    expect(en).toMatchObject({ refusal: 'off-topic', lang: 'en' });
    expect(en.text).toMatch(/^I can only answer questions about the insurance documents on this site\..*your insurer's customer service\.$/);
    expect(en.text).not.toMatch(/Harel|הראל|\*2735/);
  });

  it('answers a greeting or thanks as such, and a question about the assistant with the off-topic reply', async () => {
    const hello = await runAnswerLoop({ question: 'שלום, מה נשמע?', history: [] }, { search, engine });
    expect(hello).toMatchObject({ refused: true, refusal: 'off-topic', lang: 'he', citations: [] });
    expect(hello.text).toMatch(/^שלום! אני עונה על שאלות על מסמכי הביטוח/);
    const thanks = await runAnswerLoop({ question: 'thanks a lot!', history: [] }, { search, engine });
    expect(thanks.text).toMatch(/^You're welcome!/);
    const bot = await runAnswerLoop({ question: 'are you a real person?', history: [] }, { search, engine });
    expect(bot).toMatchObject({ refusal: 'off-topic', lang: 'en' });
    expect(bot.text).toMatch(/^I can only answer questions about the insurance documents/);
    // A greeting that opens a real question is not small talk: the question is answered.
    const real = await runAnswerLoop({ question: 'שלום, כמה השתתפות עצמית אשלם על החלפת שמשה קדמית במרכז שמשות שבהסדר?', history: [] }, { search, engine });
    expect(real).toMatchObject({ refused: false, refusal: null });
  });

  it('searches a topic change after an insurance question as typed, and a bare ellipsis of the same topic as a follow-up', async () => {
    const first = await runAnswerLoop({ question: 'מה ההשתתפות העצמית על החלפת שמשה ברכב?', history: [] }, { search, engine });
    const history = [
      { role: 'user' as const, text: 'מה ההשתתפות העצמית על החלפת שמשה ברכב?', at: 0 },
      { role: 'assistant' as const, text: first.text, answer: first, at: 1 },
    ];
    const weather = await runAnswerLoop({ question: 'מי ניצח במשחק אתמול?', history }, { search, engine });
    expect(weather.searchedQuery).toBe('מי ניצח במשחק אתמול?');
    const same = await runAnswerLoop({ question: 'רכב חלופי?', history }, { search, engine });
    expect(same.searchedQuery).toMatch(/שמשה.*רכב חלופי\?$/);
  });

  it('answers a follow-up about another insurance about it: the car’s deductibles after the home’s, not the home answer again', async () => {
    const home = 'מה ההשתתפות העצמית בביטוח דירה?';
    const first = await runAnswerLoop({ question: home, history: [] }, { search, engine });
    const follow = await runAnswerLoop({ question: 'ומה לגבי רכב?', history: turns(home, first) }, { search, engine });
    expect(follow.searchedQuery).toBe('מה ההשתתפות העצמית בביטוח רכב?');
    expect(follow).toMatchObject({ refused: false, refusal: null, domain: 'car' });
    expect(follow.citations[0].file).toBe('car/files/car-policy.md');
    expect(follow.citations.some((c) => c.file.startsWith('apartment/'))).toBe(false);
    // The car policy's deductible table (section 4), none of the home policy's 500/300 ₪.
    expect(follow.text).toMatch(/(?:1,500|2,700|3,000) ש"ח/);
    expect(follow.text).not.toBe(first.text);
  });

  it('answers an English follow-up about another insurance about it', async () => {
    const home = 'What is the excess for home insurance?';
    const first = await runAnswerLoop({ question: home, history: [] }, { search, engine });
    const follow = await runAnswerLoop({ question: 'And for travel insurance?', history: turns(home, first) }, { search, engine });
    expect(follow.searchedQuery).toBe('What is the excess for travel insurance?');
    expect(follow).toMatchObject({ refused: false, lang: 'en', domain: 'travel' });
    expect(follow.citations[0].file).toBe('travel/files/travel-policy-en.md');
    expect(follow.text).toMatch(/USD \d+/);
    expect(follow.text).not.toBe(first.text);
  });

  it('refuses a follow-up whose own words the documents do not answer, rather than repeat the answer before it', async () => {
    const water = 'מה ההשתתפות העצמית בתביעה על נזקי מים בביטוח הדירה?';
    const first = await runAnswerLoop({ question: water, history: [] }, { search, engine });
    expect(first.refused).toBe(false);
    // No document speaks of motorcycles: searched as the water question narrowed, it finds that question's clauses again.
    const motorcycle = await runAnswerLoop({ question: 'ומה לגבי אופנוע?', history: turns(water, first) }, { search, engine });
    expect(motorcycle.searchedQuery).toMatch(/נזקי מים.*אופנוע\?$/);
    expect(motorcycle).toMatchObject({ refused: true, refusal: 'not-answerable', confidence: 'low' });
    expect(motorcycle.text).not.toBe(first.text);
    // Asking the same thing again adds nothing: its answer is the same answer.
    const again = await runAnswerLoop({ question: 'ומה לגבי ביטוח דירה?', history: turns(water, first) }, { search, engine });
    expect(again).toMatchObject({ refused: false, text: first.text });
  });

  it('gives an off-topic reply no domain, even where the site fixes one or the router names one', async () => {
    const fixed = await runAnswerLoop({ question: 'מי ניצח במשחק אתמול?', history: [], domain: 'car' }, { search, engine });
    expect(fixed).toMatchObject({ refusal: 'off-topic', domain: null });
    const routed = await runAnswerLoop({ question: 'who won the car race yesterday?', history: [] }, { search, engine });
    expect(routed).toMatchObject({ refusal: 'off-topic', domain: null });
  });

  it('drops an LLM’s invented citations and renumbers the rest', async () => {
    const llm: AnswerEngine = {
      mode: 'llm',
      async generate(req) {
        const n = req.passages.length;
        return { text: `רכב חלופי ניתן למשך תקופת התיקון במוסך הסדר ולא יותר מ-14 ימים [${n + 5}][${req.passages[0].n}].` };
      },
      async checkSupport(claims) {
        return claims.map(() => true);
      },
    };
    const a = await runAnswerLoop({ question: 'לכמה ימים אקבל רכב חלופי אחרי תאונה?', history: [] }, { search, engine: llm });
    expect(a.mode).toBe('llm');
    expect(a.refused).toBe(false);
    expect(a.text.split('\n')[0]).toMatch(/14 ימים \[1\]\.$/);
    expect(a.citations).toHaveLength(1);
  });

  it('an LLM answer citing nothing is not shown as grounded: one retry, then the refusal with closest clauses', async () => {
    const states: LoopState[] = [];
    const llm: AnswerEngine = { mode: 'llm', generate: async () => ({ text: 'רכב חלופי ניתן לשבועיים.' }) };
    const a = await runAnswerLoop({ question: 'לכמה ימים אקבל רכב חלופי אחרי תאונה?', history: [] }, { search, engine: llm }, { onState: (s) => states.push(s) });
    expect(states.filter((s) => s === 'retry')).toHaveLength(1);
    expect(states).toContain('fallback');
    expect(a).toMatchObject({ refused: true, refusal: 'not-grounded', confidence: 'low' });
    expect(a.text).toContain('לא מצאתי תשובה חד-משמעית במסמכי הפוליסה');
    expect(a.citations.length).toBeGreaterThan(0);
  });

  it('throws ABORTED when stopped', async () => {
    const controller = new AbortController();
    const run = runAnswerLoop(
      { question: 'מה ההשתתפות העצמית?', history: [] },
      { search, engine },
      {
        signal: controller.signal,
        onState: (s) => s === 'grade' && controller.abort(),
      },
    );
    await expect(run).rejects.toMatchObject({ code: 'ABORTED' });
  });
});
