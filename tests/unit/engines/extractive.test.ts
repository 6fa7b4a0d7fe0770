import { describe, expect, it } from 'vitest';
import { ExtractiveEngine, selectSentences } from '../../../widget/engines/extractive.ts';
import { splitSentences } from '../../../widget/loop/sentences.ts';
import { passage } from '../loop/helpers.ts';

const policy = passage(
  'השתתפות עצמית. 4.1 בכל תביעה לנזקי מים ינוכה מתגמולי הביטוח סכום של 850 ש"ח. הראל חברה לביטוח בע"מ תשלם את יתרת הנזק. ' +
    'הפוליסה אינה מכסה בלאי של צנרת. 4.2 בתביעה על גניבה ההשתתפות העצמית היא 10% מהנזק.',
  { n: 1 },
);
const twin = passage('4.1 בכל תביעה לנזקי מים ינוכה מתגמולי הביטוח סכום של 850 ש"ח.', { n: 2, chunkId: 'twin' });

describe('ExtractiveEngine', () => {
  it('quotes verbatim sentences that cover the question, once each, with markers, streamed sentence by sentence', async () => {
    const streamed: string[] = [];
    const result = await new ExtractiveEngine().generate({
      question: 'מה ההשתתפות העצמית בתביעה על נזקי מים?',
      lang: 'he',
      passages: [policy, twin],
      history: [],
      onText: (t) => streamed.push(t),
    });
    const lines = result.text.split('\n');
    expect(lines[0]).toBe('לפי מסמכי הפוליסה:');
    expect(lines).toContain('“4.1 בכל תביעה לנזקי מים ינוכה מתגמולי הביטוח סכום של 850 ש"ח.” [1]');
    expect(lines.length).toBeLessThanOrEqual(4);
    // The twin passage says the same: never quoted a second time.
    expect(result.text).not.toContain('[2]');
    expect(streamed.length).toBe(lines.length);
    expect(streamed.at(-1)).toBe(result.text);
    for (const [n, quote] of result.quotes!) {
      const source = [policy, twin][n - 1];
      for (const q of quote.split(' … ')) expect(splitSentences(source.text)).toContain(q);
    }
  });

  it('answers an English question in English and stops when aborted', async () => {
    const p = passage('Lost baggage is covered up to 3,000 dollars per trip. Claims must be filed within 30 days.', { n: 1 });
    const engine = new ExtractiveEngine();
    const result = await engine.generate({ question: 'How much is lost baggage covered?', lang: 'en', passages: [p], history: [] });
    expect(result.text).toBe('According to the policy documents:\n“Lost baggage is covered up to 3,000 dollars per trip.” [1]');
    const controller = new AbortController();
    controller.abort();
    await expect(engine.generate({ question: 'baggage', lang: 'en', passages: [p], history: [], signal: controller.signal })).rejects.toMatchObject({ code: 'ABORTED' });
  });

  it('selects by coverage against redundancy, at most maxSentences', () => {
    const picked = selectSentences('השתתפות עצמית נזקי מים גניבה', [policy], { maxSentences: 2 });
    expect(picked).toHaveLength(2);
    expect(picked.map((p) => p.sentence).join(' ')).toMatch(/850.*|10%/);
    expect(selectSentences('רעידת אדמה', [policy])).toHaveLength(1);
  });
});
