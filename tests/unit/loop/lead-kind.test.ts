/**
 * The extractive answer leads with a fact of the kind the question asks for, and where the policy
 * states it case by case, with every case and its condition: the demo's first questions, asked
 * through the real loop on the demo corpus (its English PDF written here, as `npm run demo` does).
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../../builder/pipeline/build-index.ts';
import { readIndexFolder } from '../../../builder/read-index-folder.ts';
import { writeDemoPdf } from '../../../tools/demo-pdf.ts';
import { plainAnswerText } from '../../../widget/answer/document-text.ts';
import { ExtractiveEngine } from '../../../widget/engines/extractive.ts';
import { conditionalFacts } from '../../../widget/engines/fact-list.ts';
import { clauseTitleAt } from '../../../widget/loop/clause-title.ts';
import { confidenceTier } from '../../../widget/loop/confidence.ts';
import { askedFacts, statesAnotherKind } from '../../../widget/loop/facts.ts';
import { runAnswerLoop } from '../../../widget/loop/machine.ts';
import { LocalSearchService } from '../../../widget/search/local-search-service.ts';
import { DEMO_CORPUS, passage } from './helpers.ts';

let dir = '';
let search: LocalSearchService;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'harel-lead-kind-'));
  await cp(DEMO_CORPUS, join(dir, 'corpus'), { recursive: true });
  await writeDemoPdf(join(dir, 'corpus/apartment/files/demo-home-policy.pdf'));
  await buildIndex({ inputs: [join(dir, 'corpus')], outDir: join(dir, 'index'), embed: false, embedder: 'none', allowRemote: false, dtype: 'q8', maxTokens: 350, overlap: 0.15 });
  search = LocalSearchService.fromIndex(await readIndexFolder(join(dir, 'index')));
}, 120_000);
afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

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

  it('lists the English policy’s excesses for an English question', async () => {
    const { lines } = await ask('What is the deductible for home insurance?');
    expect(leadOf(lines)).toEqual(['Deductible:', '- Water damage: 500 ILS [1]', '- Fire and smoke: 300 ILS [1]']);
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

  it('tells a lead of another kind: a sum for a deductible or for a period, but not a share for "how much will I pay"', () => {
    expect(statesAnotherKind('המבטחת תשלם שכר דירה חלופית עד 6,000 ש"ח לחודש.', 'מה ההשתתפות העצמית בביטוח דירה?')).toBe(true);
    expect(statesAnotherKind('ההשתתפות העצמית היא 300 ש"ח.', 'מה ההשתתפות העצמית בביטוח דירה?')).toBe(false);
    expect(statesAnotherKind('המבטחת תשלם עד 6,000 ש"ח.', 'תוך כמה זמן משלמים תביעה?')).toBe(true);
    expect(statesAnotherKind('המבוטח ישלם השתתפות עצמית בגובה 20% מההוצאה.', 'כמה אצטרך לשלם מהכיס?')).toBe(false);
    // No quantity at all is no quantity of another kind.
    expect(statesAnotherKind('יש להגיש את התביעה באזור האישי.', 'מה ההשתתפות העצמית?')).toBe(false);
  });

  it('never calls an answer that leads with a fact of another kind "high"', () => {
    const strong = { refuse: false, high: true };
    expect(confidenceTier({ kept: 3, cited: true, groundedFraction: 1, assessment: strong })).toBe('high');
    expect(confidenceTier({ kept: 3, cited: true, groundedFraction: 1, assessment: strong, leadOfAnotherKind: true })).toBe('medium');
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
