import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainAnswerText } from '../../../widget/answer/document-text.ts';
import type { ParsedDeviceDocument } from '../../../widget/core/device/device-document.ts';
import { quotesFrame } from '../../../widget/engines/answer-leads.ts';
import { ExtractiveEngine } from '../../../widget/engines/extractive.ts';
import type { GradedPassage } from '../../../widget/engines/engine.ts';
import { runAnswerLoop } from '../../../widget/loop/machine.ts';
import type { LocalSearchService } from '../../../widget/search/local-search-service.ts';
import { buildDemoIndex } from '../loop/helpers.ts';

const own: ParsedDeviceDocument = {
  id: 'f'.repeat(64),
  name: 'הפוליסה-שלי.pdf',
  lang: 'he',
  pageCount: 3,
  pageTexts: ['פוליסת ביטוח דירה אישית', 'פרטי המבוטח והנכס', 'השתתפות עצמית'],
  chunks: [
    { id: 'own-1', doc: 0, page: 1, sectionPath: ['פוליסת ביטוח דירה'], clause: null, parentId: 'own-p1', text: 'פוליסת ביטוח דירה עבור המבוטח ישראל ישראלי, דירה ברחוב הגפן 12 חיפה.', tokens: 14 },
    { id: 'own-2', doc: 0, page: 2, sectionPath: ['פרטי הכיסוי'], clause: '2', parentId: 'own-p2', text: 'סכום הביטוח למבנה הדירה הוא 1,200,000 ש"ח וסכום הביטוח לתכולה הוא 180,000 ש"ח.', tokens: 16 },
    { id: 'own-3', doc: 0, page: 3, sectionPath: ['השתתפות עצמית'], clause: '3', parentId: 'own-p3', text: 'ההשתתפות העצמית בנזקי מים בפוליסה זו היא 1,250 ש"ח לכל מקרה ביטוח.', tokens: 14 },
  ],
};

let search: LocalSearchService;
let cleanup: () => Promise<void> = async () => {};
beforeAll(async () => {
  ({ search, cleanup } = await buildDemoIndex({ withPdf: true }));
}, 120_000);
afterAll(() => cleanup());

const engine = new ExtractiveEngine();
const ask = (question: string) => runAnswerLoop({ question, history: [] }, { search, engine });

describe("the customer's own document in the answer loop", () => {
  it('before it is added, the site answers the water-damage deductible', async () => {
    const answer = await ask('מה ההשתתפות העצמית בנזקי מים?');
    expect(answer.refusal).toBeNull();
    expect(answer.citations[0].origin).toBe('site');
    expect(plainAnswerText(answer.text)).toContain('500');
  });

  it('once added, its own figure leads, cited as the device page, and the answer says whose it is', async () => {
    const info = await search.addDocument(own, new Uint8Array([37, 80, 68, 70]));
    expect(info.chunks).toBe(3);
    const answer = await ask('מה ההשתתפות העצמית בנזקי מים?');
    expect(answer.refusal).toBeNull();
    const first = answer.citations[0];
    expect(first).toMatchObject({ origin: 'device', deviceDocument: own.id, file: 'הפוליסה-שלי.pdf', page: 3, url: null });
    const text = plainAnswerText(answer.text);
    expect(text).toContain('1,250');
    const lines = text.split('\n');
    // The lead is the customer's figure; the frame names both sources, since the site's booklet is quoted beneath.
    expect(lines[0]).toBe('השתתפות העצמית: 1,250 ש"ח [1]');
    expect(lines[1]).toBe('לפי המסמך שלך ומסמכי הפוליסה הכלליים שבאתר:');
    expect(answer.citations.slice(1).every((c) => c.origin === 'site')).toBe(true);
  });

  it('a question its document does not speak to is still answered from the site', async () => {
    const answer = await ask('מה ההשתתפות העצמית ברעידת אדמה?');
    expect(answer.refusal).toBeNull();
    expect(answer.citations[0].origin).toBe('site');
    expect(plainAnswerText(answer.text)).toContain('5,000');
  });

  it('after removal the site answers again', async () => {
    await search.removeDocument(own.id);
    const answer = await ask('מה ההשתתפות העצמית בנזקי מים?');
    expect(answer.citations.every((c) => c.origin === 'site')).toBe(true);
  });
});

describe('the quotes’ frame names whose words they are', () => {
  const quote = (n: number, origin: 'site' | 'device', sentence = 'ההשתתפות העצמית היא 300 ש"ח.') => ({ n, sentence, passage: { origin } as GradedPassage });
  it('the customer’s alone, both, or the site’s alone; a verdict keeps its line', () => {
    expect(quotesFrame('he', [quote(1, 'device')], null)).toBe('לפי המסמך שלך:');
    expect(quotesFrame('en', [quote(1, 'device', 'The excess is 300 dollars.'), quote(2, 'site', 'Water damage excess is 500 dollars.')], null)).toBe(
      "According to your own document and the site's general policy documents:",
    );
    expect(quotesFrame('he', [quote(1, 'site')], null)).toBe('לפי מסמכי הפוליסה:');
    expect(quotesFrame('he', [quote(1, 'device')], { verdict: 'covered', n: 1 })).toBe('כן, מכוסה [1], לפי המסמך שלך:');
  });
});
