import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plainAnswerText } from '../../../widget/answer/document-text.ts';
import type { ChatTurn } from '../../../widget/answer/types.ts';
import { ExtractiveEngine } from '../../../widget/engines/extractive.ts';
import { conditionalFacts } from '../../../widget/engines/fact-list.ts';
import { clauseTitleAt } from '../../../widget/text/clause-title.ts';
import { confidenceTier } from '../../../widget/loop/confidence.ts';
import { askedFacts, leadMissesAsked } from '../../../widget/text/facts.ts';
import { runAnswerLoop } from '../../../widget/loop/machine.ts';
import type { LocalSearchService } from '../../../widget/search/local-search-service.ts';
import { buildDemoIndex, passage } from './helpers.ts';
import { readStandalone } from '../../../widget/text/question-reading.ts';

/** Whether `quote` misses what `question` asks, the question read as the loop reads it. */
const misses = (quote: string, question: string) => {
  const { asking, askedTerms } = readStandalone(question);
  return leadMissesAsked(quote, asking.text, asking.type, askedTerms);
};

let search: LocalSearchService;
let cleanup: () => Promise<void> = async () => {};
beforeAll(async () => {
  ({ search, cleanup } = await buildDemoIndex({ withPdf: true }));
}, 120_000);
afterAll(() => cleanup());

const engine = new ExtractiveEngine();

async function ask(question: string): Promise<{ lines: string[]; confidence: string; files: string[] }> {
  const a = await runAnswerLoop({ question, history: [] }, { search, engine });
  expect(a.refusal).toBeNull();
  return { lines: plainAnswerText(a.text).split('\n'), confidence: a.confidence, files: a.citations.map((c) => c.file) };
}

/** The lines before the quotes' frame: the fact, or the list of facts. */
const leadOf = (lines: readonly string[]) =>
  lines.slice(
    0,
    lines.findIndex((l) => l === 'לפי מסמכי הפוליסה:' || l === 'According to the policy documents:'),
  );

describe('the lead fact is of the asked kind (demo corpus, real loop)', () => {
  it('lists the home deductibles with their perils, never the alternative-housing sum', async () => {
    const { lines, files } = await ask('מה ההשתתפות העצמית בביטוח דירה?');
    expect(leadOf(lines)).toEqual(['השתתפות העצמית:', '- נזקי מים: 500 ש"ח [1]', '- אש ועשן: 300 ש"ח [1]', '- רעידת אדמה: 10% מסכום הנזק, ולא פחות מ-5,000 ש"ח [1]']);
    expect(files[0]).toBe('apartment/files/apartment-policy.md');
    expect(lines.join('\n')).not.toContain('6,000');
  });

  it('answers the earthquake deductible alone when the question names the earthquake, quoting its clause first', async () => {
    const { lines } = await ask('מה ההשתתפות העצמית ברעידת אדמה?');
    expect(leadOf(lines)).toEqual(['השתתפות העצמית, רעידת אדמה: 10% מסכום הנזק, ולא פחות מ-5,000 ש"ח [1]']);
    expect(lines[2]).toBe('“ההשתתפות העצמית היא 10% מסכום הנזק, ולא פחות מ-5,000 ש"ח.” [1]');
  });

  it("lists the car's deductibles from the policy's table, one row each", async () => {
    const { lines, files } = await ask('מה ההשתתפות העצמית בביטוח רכב?');
    const lead = leadOf(lines);
    expect(lead[0]).toBe('השתתפות העצמית:');
    expect(lead).toContain('- נזק תאונתי – תיקון במוסך הסדר: 1,500 ש"ח [1]');
    expect(lead).toContain('- גניבה או אובדן גמור: 7% משווי הרכב, ולא פחות מ-3,000 ש"ח [1]');
    expect(files[0]).toBe('car/files/car-policy.md');
  });

  it('lists both windshield deductibles for a question that names no centre, and a named case by more than one shared word', async () => {
    const windshield = leadOf((await ask('כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?')).lines);
    expect(windshield[0]).toBe('השתתפות עצמית:');
    expect(windshield.some((l) => l.includes('250 ש"ח'))).toBe(true);
    expect(windshield.some((l) => l.includes('600 ש"ח'))).toBe(true);
    // "רופא" alone does not make the surgeon's clause the consultation's: its 5,000 ש"ח never leads.
    const consultation = leadOf((await ask('כמה השתתפות עצמית אשלם על התייעצות עם רופא מומחה?')).lines);
    expect(consultation).toEqual(['השתתפות עצמית: 250 ש"ח [1]']);
  });

  it('lists the English policy’s excesses for an English question', async () => {
    const { lines } = await ask('What is the deductible for home insurance?');
    expect(leadOf(lines)).toEqual(['Deductible:', '- Water damage: 500 ILS [1]', '- Fire and smoke: 300 ILS [1]']);
  });
});

describe('follow-ups about another subject (demo corpus, real loop)', () => {
  async function followUpAfter(first: string, question: string) {
    const previous = await runAnswerLoop({ question: first, history: [] }, { search, engine });
    const history: ChatTurn[] = [
      { role: 'user', text: first, at: 0 },
      { role: 'assistant', text: previous.text, answer: previous, at: 1 },
    ];
    return runAnswerLoop({ question, history }, { search, engine });
  }

  it('searches the insurance a follow-up names, even where the router leans elsewhere', async () => {
    // Alone, "מה ההשתתפות העצמית בביטוח נסיעות?" routes to car on the demo index: the deductible is a car word there.
    const a = await followUpAfter('מה ההשתתפות העצמית בביטוח דירה?', 'ומה לגבי נסיעות?');
    expect(a.domain).toBe('travel');
    expect(a.citations[0].file.startsWith('travel/')).toBe(true);
    expect(plainAnswerText(a.text)).toContain('ביטול נסיעה: 10% מההפסד');
  });

  it('lists no deductibles for a follow-up about something no case is stated for, and does not call it "high"', async () => {
    const a = await followUpAfter('מה ההשתתפות העצמית בביטוח דירה?', 'ומה לגבי מזג האוויר?');
    expect(leadOf(plainAnswerText(a.text).split('\n'))).toEqual([]);
    expect(a.confidence).not.toBe('high');
  });
});

describe('facts of the asked kind', () => {
  it('a deductible is the asked term or stated under it, never another sum the clause holds', () => {
    const question = 'מה ההשתתפות העצמית בביטוח דירה?';
    expect(askedFacts('המבטחת תשלם שכר דירה חלופית עד 6,000 ש"ח לחודש.', question, 'amount')).toEqual([]);
    expect(askedFacts('ההשתתפות העצמית היא 300 ש"ח.', question, 'amount').map((f) => f.text)).toEqual(['300 ש"ח']);
    // The minimum sits past a number, too far for a label; the share is the deductible too.
    expect(askedFacts('ההשתתפות העצמית היא 10% מסכום הנזק, ולא פחות מ-5,000 ש"ח.', question, 'amount').map((f) => f.text)).toEqual(['5,000 ש"ח', '10% מסכום הנזק']);
    // The section above speaks for a sentence that names no term; "deductible" meets "השתתפות עצמית".
    expect(askedFacts('בכל תביעה לנזקי מים ינוכה סכום של 850 ש"ח.', 'What is the deductible?', 'amount', undefined, ['השתתפות עצמית'])).toHaveLength(1);
    // A sum before the premium it is per (a PDF line read backwards) is no premium.
    expect(askedFacts('טבלת הפרמיות ₪ 10,000 פרמיה חודשית לכל', 'כמה תהיה הפרמיה החודשית?', 'amount')).toEqual([]);
  });

  it('tells a lead that misses the ask: a sum for a deductible or for a period, a clause silent on the asked term; not a share for "how much will I pay"', () => {
    expect(misses('המבטחת תשלם שכר דירה חלופית עד 6,000 ש"ח לחודש.', 'מה ההשתתפות העצמית בביטוח דירה?')).toBe(true);
    expect(misses('ההשתתפות העצמית היא 300 ש"ח.', 'מה ההשתתפות העצמית בביטוח דירה?')).toBe(false);
    expect(misses('המבטחת תשלם עד 6,000 ש"ח.', 'תוך כמה זמן משלמים תביעה?')).toBe(true);
    expect(misses('המבוטח ישלם השתתפות עצמית בגובה 20% מההוצאה.', 'כמה אצטרך לשלם מהכיס?')).toBe(false);
    // A question that names no term: a quote without a quantity misses nothing.
    expect(misses('יש להגיש את התביעה באזור האישי.', 'כמה אקבל?')).toBe(false);
    // A question that names a term: the quote must speak of it.
    expect(misses('בלאי הוא ירידה הדרגתית בערך הרכוש עקב מזג האוויר.', 'ההשתתפות העצמית בביטוח דירה מזג האוויר?')).toBe(true);
    expect(misses('ההשתתפות העצמית תנוכה מתגמולי הביטוח.', 'מה ההשתתפות העצמית בביטוח רכב?')).toBe(false);
  });

  it('never calls an answer whose lead misses what is asked "high"', () => {
    const strong = { refuse: false, high: true };
    expect(confidenceTier({ kept: 3, cited: true, groundedFraction: 1, assessment: strong })).toBe('high');
    expect(confidenceTier({ kept: 3, cited: true, groundedFraction: 1, assessment: strong, leadMissesAskedFact: true })).toBe('medium');
  });

  it('reads a clause title and the facts stated under each', () => {
    const text =
      '2. הכיסויים\n2.1 נזקי מים – המבטחת תשפה בגין נזקי מים. ההשתתפות העצמית היא 500 ש"ח.\n2.2 Fire and smoke. We cover fire. The excess is 300 ILS.\n2.3 ללא כותרת כאן כי המשפט ארוך מדי לכותרת של סעיף – טקסט';
    expect(clauseTitleAt(text, text.indexOf('ההשתתפות'))).toBe('נזקי מים');
    expect(clauseTitleAt(text, text.indexOf('The excess'))).toBe('Fire and smoke');
    expect(clauseTitleAt(text, 0)).toBeNull();
    expect(clauseTitleAt(text, text.indexOf('טקסט'))).toBeNull();
    const p = passage(text, { file: 'apartment/policy.md' });
    expect(conditionalFacts('מה ההשתתפות העצמית?', 'amount', ['השתתפות העצמית'], [p], 'apartment/policy.md')).toEqual([
      { n: 1, condition: 'נזקי מים', value: '500 ש"ח' },
      // "excess" is a lexicon equivalent of the asked term.
      { n: 1, condition: 'Fire and smoke', value: '300 ILS' },
    ]);
  });
});
