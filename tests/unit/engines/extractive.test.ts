import { describe, expect, it } from 'vitest';
import { answerSegments, documentValue, plainAnswerText } from '../../../widget/answer/document-text.ts';
import type { GenerateRequest, GenerateResult, GradedPassage } from '../../../widget/engines/engine.ts';
import { ExtractiveEngine, selectSentences } from '../../../widget/engines/extractive.ts';
import { groundAnswer } from '../../../widget/loop/ground.ts';
import { oneLine, splitSentences } from '../../../widget/text/sentences.ts';
import { passage } from '../loop/helpers.ts';
import { readStandalone } from '../../../widget/text/question-reading.ts';

const policy = passage(
  'השתתפות עצמית. 4.1 בכל תביעה לנזקי מים ינוכה מתגמולי הביטוח סכום של 850 ש"ח. הראל חברה לביטוח בע"מ תשלם את יתרת הנזק. ' +
    'הפוליסה אינה מכסה בלאי של צנרת. 4.2 בתביעה על גניבה ההשתתפות העצמית היא 10% מהנזק.',
  { n: 1 },
);
const twin = passage('4.1 בכל תביעה לנזקי מים ינוכה מתגמולי הביטוח סכום של 850 ש"ח.', { n: 2, chunkId: 'twin' });

async function answer(question: string, passages: GradedPassage[], extra: Partial<GenerateRequest> & { searchQuery?: string } = {}): Promise<GenerateResult & { lines: string[] }> {
  const { searchQuery, ...rest } = extra;
  const lang = /[\u05D0-\u05EA]/.test(question) ? 'he' : 'en';
  const result = await new ExtractiveEngine().generate({ question, reading: readStandalone(question, searchQuery, lang), lang, passages, history: [], ...rest });
  // The lines as a reader sees them: quoted document text unwrapped (answer/document-text.ts).
  return { ...result, lines: plainAnswerText(result.text).split('\n') };
}

/**
 * Every quote in the answer and in `quotes` is a sentence of the passage it cites, as written, and
 * goes into the answer as one run of document text.
 */
function expectVerbatim(result: GenerateResult, passages: readonly GradedPassage[]): void {
  const byN = new Map(passages.map((p) => [p.n, p]));
  const sentencesOf = (n: number) => splitSentences(byN.get(n)!.context || byN.get(n)!.text).map(oneLine);
  for (const line of result.text.split('\n')) {
    const m = line.match(/^“\u2068([^\u2068\u2069]*)\u2069” \[(\d+)\]$/u);
    if (m) expect(sentencesOf(Number(m[2]))).toContain(documentValue(m[1]));
    else expect(line).not.toMatch(/^“/);
  }
  for (const [n, quote] of result.quotes!) for (const q of quote.split(' … ')) expect(sentencesOf(n)).toContain(q);
}

/** The answer as the loop grounds it: every claim supported by the passage it cites. */
async function expectGrounded(text: string, passages: GradedPassage[]): Promise<void> {
  const ground = await groundAnswer(text, passages, {});
  expect(ground.sentences.filter((s) => !s.supported).map((s) => s.sentence)).toEqual([]);
}

describe('ExtractiveEngine', () => {
  it('leads with the asked amount, then quotes verbatim sentences once each, streamed line by line', async () => {
    const streamed: string[] = [];
    const result = await answer('מה ההשתתפות העצמית בתביעה על נזקי מים?', [policy, twin], { onText: (t) => streamed.push(t) });
    // The clause names no term for its sum ("תגמולי הביטוח" is what it is deducted from): the generic lead.
    expect(result.lines[0]).toBe('הסכום: 850 ש"ח [1]');
    expect(result.lines[1]).toBe('לפי מסמכי הפוליסה:');
    expect(result.lines).toContain('“4.1 בכל תביעה לנזקי מים ינוכה מתגמולי הביטוח סכום של 850 ש"ח.” [1]');
    expect(result.lines.length).toBeLessThanOrEqual(5);
    // The twin passage says the same: never quoted a second time.
    expect(result.text).not.toContain('[2]');
    expect(streamed.length).toBe(result.lines.length);
    expect(streamed.at(-1)).toBe(result.text);
    expectVerbatim(result, [policy, twin]);
    await expectGrounded(result.text, [policy, twin]);
  });

  it("names the fact with the clause's own term and passes over facts about another term", async () => {
    const p = passage('ההשתתפות העצמית בביטוח מקיף היא 1,500 ש"ח לכל מקרה ביטוח. הפרמיה השנתית בביטוח מקיף היא 3,200 ש"ח לכל רכב.', { n: 1 });
    const he = await answer('כמה ההשתתפות העצמית בביטוח מקיף?', [p]);
    expect(he.lines[0]).toBe('השתתפות העצמית: 1,500 ש"ח [1]');
    // Asked about the deductible: the premium in the same passage is no lead even when quoted.
    const premium = await answer('כמה ההשתתפות העצמית בביטוח מקיף?', [passage('הפרמיה השנתית בביטוח מקיף היא 3,200 ש"ח לכל רכב, וההשתתפות העצמית נקבעת במפרט.', { n: 1 })]);
    expect(premium.lines[0]).toBe('לפי מסמכי הפוליסה:');
    const en = passage('The waiting period for surgery is 90 days from the start of the policy. Claims are paid within 30 days.', { n: 1 });
    const result = await answer('What is the waiting period for surgery?', [en]);
    expect(result.lines[0]).toBe('Waiting period: 90 days [1]');
    expect(result.lines[1]).toBe('According to the policy documents:');
    await expectGrounded(result.text, [en]);
  });

  it('answers an English amount question in English and stops when aborted', async () => {
    const p = passage('Lost baggage is covered up to 3,000 dollars per trip. Claims must be filed within 30 days.', { n: 1 });
    const engine = new ExtractiveEngine();
    const result = await engine.generate({ question: 'How much is lost baggage covered?', reading: readStandalone('How much is lost baggage covered?'), lang: 'en', passages: [p], history: [] });
    expect(plainAnswerText(result.text)).toBe('Amount: 3,000 dollars [1]\nAccording to the policy documents:\n“Lost baggage is covered up to 3,000 dollars per trip.” [1]');
    // The fact and the quote are the clause's text; the markers and the frame are the engine's.
    expect(
      answerSegments(result.text)
        .filter((s) => s.kind === 'document')
        .map((s) => s.text),
    ).toEqual(['3,000 dollars', 'Lost baggage is covered up to 3,000 dollars per trip.']);
    const controller = new AbortController();
    controller.abort();
    await expect(engine.generate({ question: 'baggage', reading: readStandalone('baggage'), lang: 'en', passages: [p], history: [], signal: controller.signal })).rejects.toMatchObject({
      code: 'ABORTED',
    });
  });

  it('never leads with a number the customer gave, nor with a fact of another kind', async () => {
    const p = passage('לכל סכום ביטוח של 10,000 ש"ח נקבעה פרמיה חודשית לפי גיל המבוטח בטבלה.', { n: 1 });
    const result = await answer('כמה אשלם בחודש על סכום ביטוח של 10,000 ש"ח?', [p]);
    expect(result.lines[0]).toBe('לפי מסמכי הפוליסה:');
    // A deductible may be a share of the damage: the percentage the clause gives it leads.
    const theft = await answer('מה ההשתתפות העצמית בתביעה על גניבה?', [policy]);
    expect(theft.lines[0]).toBe('השתתפות העצמית: 10% מהנזק [1]');
    // A sum about another term never answers the asked one, however much of the question its clause holds.
    const housing = passage('אם הדירה אינה ראויה למגורים, המבטחת תשלם שכר דירה חלופית עד 6,000 ש"ח לחודש בביטוח דירה.', { n: 1, sectionPath: ['הכיסויים'] });
    const deductible = await answer('מה ההשתתפות העצמית בביטוח דירה?', [housing]);
    expect(deductible.lines[0]).toBe('לפי מסמכי הפוליסה:');
    expect(deductible.text).not.toContain('הסכום');
  });

  it('opens a coverage answer with the verdict the quoted clause states, and with none when it states none', async () => {
    const exclusion = passage('הפוליסה אינה מכסה בלאי של צנרת או חלודה.', { n: 1, sectionPath: ['פרק ב', 'חריגים'] });
    const no = await answer('האם בלאי של צנרת מכוסה?', [exclusion]);
    expect(no.lines[0]).toBe('לא מכוסה — חריג בפוליסה [1], לפי מסמכי הפוליסה:');
    expect(no.lines[1]).toBe('“הפוליסה אינה מכסה בלאי של צנרת או חלודה.” [1]');

    const baggage = passage('Lost baggage is covered up to 3,000 dollars per trip. Claims must be filed within 30 days.', { n: 1 });
    expect((await answer('Is lost baggage covered?', [baggage])).lines[0]).toBe('Yes, covered [1], according to the policy documents:');

    const conditional = passage('נזק לבריכה יכוסה בתנאי שהבריכה מגודרת ונעולה.', { n: 1 });
    expect((await answer('האם נזק לבריכה מכוסה?', [conditional])).lines[0]).toBe('מכוסה בתנאים [1], לפי מסמכי הפוליסה:');

    const neutral = passage('שירותי הגרירה ניתנים על ידי נותן השירות בכל שעות היממה.', { n: 1 });
    expect((await answer('האם גרירה מכוסה?', [neutral])).lines[0]).toBe('לפי מסמכי הפוליסה:');
    await expectGrounded(no.text, [exclusion]);
  });

  it('gives no verdict when the quotes disagree, and quotes the answer rather than a question in the passage', async () => {
    const both = [passage('נזק לחיישני הפגוש יהיה מכוסה לפי כתב השירות.', { n: 1 }), passage('נזק לחיישני הפגוש שנגרם לפני תחילת הביטוח אינו מכוסה.', { n: 2, chunkId: 'b' })];
    const result = await answer('האם נזק לחיישני הפגוש מכוסה?', both);
    expect(result.lines[0]).toBe('לפי מסמכי הפוליסה:');

    const faq = passage('האם הביטוח מכסה גרירה לאחר תאונה? כן, הביטוח מכסה גרירה לאחר תאונה עד 3 פעמים בשנה.', { n: 1 });
    const answered = await answer('האם הביטוח מכסה גרירה לאחר תאונה?', [faq]);
    expect(answered.lines[0]).toBe('כן, מכוסה [1], לפי מסמכי הפוליסה:');
    expect(answered.lines[1]).toBe('“כן, הביטוח מכסה גרירה לאחר תאונה עד 3 פעמים בשנה.” [1]');
  });

  it("says so in the question's language when every quoted clause is in the other one, and still quotes verbatim", async () => {
    const en = await answer('What is the deductible for water damage?', [policy]);
    expect(en.lines[0]).toBe('Amount: 850 ש"ח [1]');
    expect(en.lines[1]).toBe('The matching clauses are in Hebrew, quoted as written:');
    expect(en.lines[2]).toBe('“4.1 בכל תביעה לנזקי מים ינוכה מתגמולי הביטוח סכום של 850 ש"ח.” [1]');
    expectVerbatim(en, [policy]);
    await expectGrounded(en.text, [policy]);

    const english = passage('Lost baggage is covered up to 3,000 dollars per trip.', { n: 1 });
    const he = await answer('האם כבודה שאבדה מכוסה?', [english]);
    expect(he.lines[0]).toBe('כן, מכוסה [1], לפי הסעיפים המתאימים, שכתובים באנגלית ומצוטטים כלשונם:');
    const plain = await answer('מה קורה עם כבודה?', [english]);
    expect(plain.lines[0]).toBe('הסעיפים המתאימים כתובים באנגלית, והם מצוטטים כלשונם:');
  });

  it('selects a follow-up on the words it was searched with', async () => {
    const p = passage('גניבה של אופניים מחצר הבית מטופלת בנפרד. בתביעה על גניבה ההשתתפות העצמית היא 10% מהנזק.', { n: 1 });
    const alone = await answer('ומה לגבי גניבה?', [p]);
    expect(alone.lines[1]).toBe('“גניבה של אופניים מחצר הבית מטופלת בנפרד.” [1]');
    const followUp = await answer('ומה לגבי גניבה?', [p], { searchQuery: 'השתתפות עצמית ומה לגבי גניבה?' });
    // What it asks is read from the searched words too: the deductible leads.
    expect(followUp.lines[0]).toBe('השתתפות העצמית: 10% מהנזק [1]');
    expect(followUp.lines[2]).toBe('“בתביעה על גניבה ההשתתפות העצמית היא 10% מהנזק.” [1]');
  });
});

describe('selectSentences', () => {
  it('selects by coverage against redundancy, at most maxSentences', () => {
    const picked = selectSentences('השתתפות עצמית נזקי מים גניבה', [policy], { maxSentences: 2 });
    expect(picked).toHaveLength(2);
    expect(picked.map((p) => p.sentence).join(' ')).toMatch(/850.*|10%/);
    expect(selectSentences('רעידת אדמה', [policy])).toHaveLength(1);
  });

  it('prefers, among sentences that cover the question alike, the one that carries the asked kind of fact', () => {
    const p = passage('ההשתתפות העצמית בביטוח רכב נקבעת במפרט לכל סוג נזק. ההשתתפות העצמית בביטוח רכב היא 1,500 ש"ח לכל נזק.', { n: 1 });
    const question = 'מה ההשתתפות העצמית בביטוח רכב?';
    expect(selectSentences(question, [p], { answerTypeBonus: 1 })[0].sentence).toMatch(/נקבעת במפרט/);
    const [first] = selectSentences(question, [p]);
    expect(first.sentence).toMatch(/1,500/);
    expect(first.score).toBeGreaterThan(first.relevance);
  });
});

describe('a question asking how to reach the insurer', () => {
  const claims = passage(
    "לחלופין, אפשר לבחור כל רופא פרטי אחר ולהגיש לנו תביעה להחזר הוצאות. יש כמה דרכים להגשת התביעה: במייל, בכתובת: services@harel-ins.co.il בפקס, למספר: 03-7348102 בדואר, לכתובת: רח' אבא הלל 3 ת.ד 10952 רמת גן 5252202.",
    { n: 1, file: 'dental/pages/claims.txt', domain: 'dental', sectionPath: ['הגשת תביעה'] },
  );
  const other = passage('תביעות רכב: בפקס, למספר: 03-5555555.', { n: 2, file: 'car/pages/claims.txt', domain: 'car', sectionPath: [] });

  it("leads with the asked channels of the best quote's document, cited, and quotes the clause that states them", async () => {
    const result = await answer('איך אני מגיש תביעה להחזר הוצאות טיפול שיניים?', [claims, other]);
    expect(result.lines.slice(0, 4)).toEqual(['דרכי הפנייה:', '- דוא״ל: services@harel-ins.co.il [1]', '- פקס: 03-7348102 [1]', "- דואר: רח' אבא הלל 3 ת.ד 10952 רמת גן 5252202 [1]"]);
    // Another department's fax is never listed.
    expect(result.text).not.toContain('03-5555555');
    expect(result.lines.some((l) => l.includes('03-7348102') && l.startsWith('“'))).toBe(true);
    expectVerbatim(result, [claims, other]);
  });

  it('states the one channel asked for on one line', async () => {
    const result = await answer('מה מספר הפקס להגשת תביעת שיניים?', [claims]);
    expect(result.lines[0]).toBe('פקס: 03-7348102 [1]');
  });

  it('opens without a contact when the question asks for none', async () => {
    const result = await answer('האם טיפול אצל רופא פרטי מכוסה?', [claims]);
    expect(result.lines[0]).not.toMatch(/^(?:דרכי הפנייה|פקס|דוא״ל|דואר):/u);
  });
});

describe('the quote under a contact lead', () => {
  it("is the stretch of a scraped page's run-on sentence that lists the contacts, verbatim", async () => {
    const menu = 'פורטלים מקצועיים אודות קבוצת הראל כניסה לסוכנים כניסה למעסיקים כניסה לספקים כניסה לרופאים קריירה בהראל '.repeat(8);
    const page = passage(
      `הגשת תביעה לביטוח שיניים: אפשר להגיש תביעה להחזר הוצאות טיפול שיניים. ${menu}יש כמה דרכים להגשת התביעה: בפקס, למספר: 03-7348102 בדואר, לכתובת: רח' אבא הלל 3 ת.ד 10952 רמת גן 5252202 ${menu}`,
      {
        n: 1,
        file: 'dental/pages/claims.txt',
        domain: 'dental',
      },
    );
    const result = await answer('איך אני מגיש תביעה להחזר הוצאות טיפול שיניים?', [page]);
    expect(result.lines[0]).toBe('דרכי הפנייה:');
    const quote = [...result.quotes!.get(1)!.split(' … ')].find((q) => q.includes('03-7348102'));
    expect(quote).toBeDefined();
    expect(quote!.length).toBeLessThan(300);
    expect(oneLine(page.text)).toContain(quote);
    expect(quote).toContain('5252202');
  });
});
