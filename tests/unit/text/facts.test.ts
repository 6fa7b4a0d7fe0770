import { describe, expect, it } from 'vitest';
import { answersType, coverageVerdict, factLabels, findFact, findFacts } from '../../../widget/text/facts.ts';

/** The facts' texts, each checked to be a verbatim substring of the sentence. */
function texts(sentence: string, type: Parameters<typeof findFacts>[1]): string[] {
  const facts = findFacts(sentence, type);
  for (const f of facts) expect(sentence).toContain(f.text);
  return facts.map((f) => f.text);
}

describe('findFact: amounts', () => {
  it('finds sums with their currency, written either way round, verbatim', () => {
    expect(texts('בכל תביעה לנזקי מים ינוכה סכום של 850 ש"ח.', 'amount')).toEqual(['850 ש"ח']);
    expect(texts('ההחזר לא יעלה על 1,200 ש״ח לטיפול ועל ₪ 4,000 לשנה.', 'amount')).toEqual(['1,200 ש״ח', '₪ 4,000']);
    expect(texts('Lost baggage is covered up to 3,000 dollars, or $1,500 for a single item.', 'amount')).toEqual(['3,000 dollars', '$1,500']);
    expect(texts('The excess is NIS 250 per claim.', 'amount')).toEqual(['NIS 250']);
    expect(texts('גבול האחריות הוא 1.2 מיליון ש"ח למקרה.', 'amount')).toEqual(['1.2 מיליון ש"ח']);
  });

  it('takes no clause number, date, page, phone number or bare number for an amount', () => {
    const sentence = 'לפי סעיף 3.2.4 בעמוד 12, עד 15.12.2022 ניתן לפנות בטלפון 03-7348102 או *2735 ולציין פוליסה 4.1 ומספר 500.';
    expect(findFacts(sentence, 'amount')).toEqual([]);
    // Reversed right-to-left PDF text: ".34.2.3" is a clause number, not 34.2 of anything.
    expect(findFacts('לא יפחתו תגמולי הביטוח מסכום השווה ל.34.2.3 מן הסכום ששולם.', 'amount')).toEqual([]);
  });

  it('names the term the amount is about when the sentence does, right before it', () => {
    expect(findFact('ההשתתפות העצמית בביטוח מקיף היא 1,500 ש"ח לכל מקרה.', 'amount')).toEqual({
      kind: 'amount',
      text: '1,500 ש"ח',
      label: 'השתתפות העצמית',
    });
    expect(findFact('Deductible: $250 per claim.', 'amount')?.label).toBe('Deductible');
    // The benefits the sum is deducted from are not what the sum is.
    expect(findFact('בכל תביעה ינוכה מתגמולי הביטוח סכום של 850 ש"ח.', 'amount')?.label).toBeNull();
  });

  it('states nothing in a question or a worked example', () => {
    expect(findFacts('האם ההשתתפות העצמית היא 500 ש"ח?', 'amount')).toEqual([]);
    expect(findFacts('לדוגמה: נזק של 10,000 ש"ח יזכה ב-7,000 ש"ח.', 'amount')).toEqual([]);
    // A table row flattened by PDF extraction: which cell a sum belongs to is lost.
    expect(findFacts('| שם הכיסוי | ₪ 5,000,000 | ₪ 3,000,000 |', 'amount')).toEqual([]);
  });
});

describe('findFact: durations, ages, percentages, counts', () => {
  it('finds durations in digits and words, Hebrew and English', () => {
    expect(texts('הכיסוי ימשיך בשתי הדירות לתקופה שלא תעלה על 3 ימים.', 'duration')).toEqual(['3 ימים']);
    expect(texts('יש להודיע לבנק תוך 3 ימי עסקים ממועד החיוב.', 'duration')).toEqual(['3 ימי עסקים']);
    expect(texts('תקופת ההתיישנות היא שלוש שנים, ולאחר שנתיים יישלח תזכורת.', 'duration')).toEqual(['שלוש שנים', 'שנתיים']);
    expect(texts('הכיסוי בתוקף לשלושה חודשים בלבד.', 'duration')).toEqual(['שלושה חודשים']);
    expect(texts('The waiting period is 90 days, or a 12-month period for pregnancy.', 'duration')).toEqual(['90 days', '12-month']);
    expect(findFact('תקופת האכשרה לניתוחים היא 12 חודשים.', 'duration')).toEqual({ kind: 'duration', text: '12 חודשים', label: 'תקופת האכשרה' });
  });

  it('reads a dual as two months or two years, never the plural adjective "monthly" or "annual" it is spelled as', () => {
    expect(findFact('התביעה תשולם תוך חודשיים מיום ההודעה.', 'duration')?.text).toBe('חודשיים');
    expect(findFact('הכיסוי ניתן למשך שנתיים לפחות.', 'duration')?.text).toBe('שנתיים');
    expect(findFact('קיזוז פיצויים חודשיים המשולמים ממבטחים אחרים.', 'duration')).toBeNull();
    expect(findFact('המבטח ישאיר לעצמו 10% מדמי הביטוח השנתיים.', 'duration')).toBeNull();
    expect(findFact('דמי האשראי ישולמו בתשלומים חודשיים שווים ורצופים.', 'duration')).toBeNull();
  });

  it('finds ages, and does not read an age as a duration', () => {
    expect(texts('ניתן להצטרף לכיסוי עד גיל 70 בלבד.', 'age')).toEqual(['עד גיל 70']);
    expect(texts('מבוטחת שטרם מלאו לה 42 שנים ביום האירוע.', 'age')).toEqual(['שטרם מלאו לה 42 שנים']);
    expect(findFacts('מבוטחת שטרם מלאו לה 42 שנים ביום האירוע.', 'duration')).toEqual([]);
    expect(texts('Drivers aged 24 are covered up to the age of 75.', 'age')).toEqual(['aged 24', 'up to the age of 75']);
    expect(findFacts('הגבלת גיל 250 אינה קיימת.', 'age')).toEqual([]);
  });

  it('finds percentages with what they are a share of', () => {
    expect(texts('תכשיטים - עד 10% מסכום הביטוח;', 'percentage')).toEqual(['10% מסכום הביטוח']);
    expect(texts('ההשתתפות העצמית היא 15 אחוז מהנזק.', 'percentage')).toEqual(['15 אחוז מהנזק']);
    expect(texts('We reimburse 80% of the actual expenses.', 'percentage')).toEqual(['80% of the actual expenses']);
    expect(findFact('יהיה זכאי להחזר של 80% מההוצאות בפועל.', 'percentage')?.label).toBe('החזר');
  });

  it('finds counts but not units, pages or clause references', () => {
    expect(texts('השירות כולל עד 3 גרירות בשנת ביטוח.', 'count')).toEqual(['3 גרירות']);
    expect(texts('Up to 3 tows per policy year, and twice a year a battery boost.', 'count')).toEqual(['3 tows', 'twice']);
    expect(texts('נדרשת אי יכולת לבצע 3 מתוך 6 פעולות.', 'count')).toEqual(['3 מתוך 6']);
    expect(texts('ניתן להשתמש בשירות שלוש פעמים בשנה.', 'count')).toEqual(['שלוש פעמים']);
    expect(findFacts('ראו עמוד 3 מתוך 10, ותוך 5 ימים.', 'count')).toEqual([]);
    expect(findFacts('עד 9 להתייעצות בשנת ביטוח.', 'count')).toEqual([]);
    // A list marker or a section beside the next word, as the PDF parse leaves them (the hand check of 50 facts).
    expect(findFacts('את כל ההודעות ו/או 3 המסמכים הקשורים להליך החיתום.', 'count')).toEqual([]);
    expect(findFacts('סייגים כלליים 6 ובתנאים הכלליים של הפוליסה.', 'count')).toEqual([]);
    expect(findFacts('כאמור ב 5 ו 4 סעיפים לעיל.', 'count')).toEqual([]);
  });

  it('finds no fact for a question type that asks for none', () => {
    expect(findFacts('ההשתתפות העצמית היא 500 ש"ח.', 'coverage')).toEqual([]);
    expect(findFact('ההשתתפות העצמית היא 500 ש"ח.', 'other')).toBeNull();
  });

  it('reads the terms a question asks a fact about', () => {
    expect(factLabels('מה ההשתתפות העצמית בביטוח הרכב?', 'amount')).toEqual(['השתתפות העצמית']);
    expect(factLabels('What is the waiting period?', 'duration')).toEqual(['waiting period']);
    expect(factLabels('כמה זה עולה?', 'amount')).toEqual([]);
  });
});

describe('coverageVerdict', () => {
  it('finds exclusions stated outright or by their section', () => {
    expect(coverageVerdict('הפוליסה אינה מכסה בלאי של צנרת.', [])).toBe('excluded');
    expect(coverageVerdict('המבטח לא יהיה אחראי לנזק שנגרם במתכוון.', [])).toBe('excluded');
    expect(coverageVerdict('ביטוח סיכון מים לא יכוסה אם הדירה ריקה יותר מ-60 ימים רצופים.', [])).toBe('excluded');
    expect(coverageVerdict('We will not pay for any claim arising from war.', [])).toBe('excluded');
    expect(coverageVerdict('נזק שנגרם עקב מלחמה או פעולות איבה.', ['פרק ג', 'חריגים לפרק ג'])).toBe('excluded');
    expect(coverageVerdict('Damage caused by wear and tear.', ['Section 4', 'What is not covered'])).toBe('excluded');
  });

  it('finds cover, and cover with a condition', () => {
    expect(coverageVerdict('המבטח ישלם למבוטח את הוצאות הגרירה.', [])).toBe('covered');
    expect(coverageVerdict('Clothing of the insured will be covered while outside the apartment.', [])).toBe('covered');
    expect(coverageVerdict('הביטוח מורחב לכסות נזק לציוד בעת הימצאו מחוץ לעסק, ובלבד שהציוד נמצא במבנה נעול.', [])).toBe('conditional');
    expect(coverageVerdict('Lost baggage is covered provided that the loss was reported to the police.', [])).toBe('conditional');
  });

  it('gives no verdict when the clause does not decide, or not only one way', () => {
    // Neutral.
    expect(coverageVerdict('המבוטח יגיש את התביעה בכתב.', [])).toBeNull();
    expect(coverageVerdict('Towing services are provided by the service provider.', [])).toBeNull();
    // A question in the document (an FAQ heading).
    expect(coverageVerdict('האם הביטוח המקיף מכסה את עמדת הטעינה?', [])).toBeNull();
    // A negation that is the condition, not the verdict: the premium not being paid.
    expect(coverageVerdict('אם דמי הביטוח לא ישולמו במועדם, רשאי המבטח לבטל את הביטוח.', [])).toBeNull();
    // Excluded unless something else holds; another insurance paying first.
    expect(coverageVerdict('הביטוח לא יכסה נזק כזה אלא אם נרכשה הרחבה.', [])).toBeNull();
    expect(coverageVerdict('אם הנזק מכוסה על פי פוליסה אחרת, יחול הכיסוי רק כסכום עודף.', [])).toBeNull();
    // Grants and denies at once.
    expect(coverageVerdict('נזק לחיישנים יהיה מכוסה, אך יחידת הבקרה אינה מכוסה.', [])).toBeNull();
    // Inside an exclusions section: lifting an exclusion, an extension, a carve-out, a list's lead-in.
    expect(coverageVerdict('סייג זה לא יחול לגבי נזק לאדם שאינו עובד המבוטח.', ['סייגים'])).toBeNull();
    expect(coverageVerdict('ניתן לרכוש הרחבה לביטול החריג לספורט אתגרי.', ['חריגים'])).toBeNull();
    expect(coverageVerdict('כל נזק מים ונוזלים אחרים למעט האמור בסעיף 1.1.4.', ['חריגים'])).toBeNull();
    expect(coverageVerdict('המבטח לא יהיה אחראי בגין הנזקים הבאים:', [])).toBe('excluded');
    expect(coverageVerdict('החריגים הבאים חלים על כל פרקי הפוליסה:', ['חריגים'])).toBeNull();
    // An extensions section is not an exclusions section.
    expect(coverageVerdict('נזק שנגרם עקב מלחמה.', ['פרק ג', 'הרחבות'])).toBeNull();
  });
});

describe('answersType', () => {
  it('says whether a sentence carries what each type of question asks for', () => {
    expect(answersType('ההשתתפות העצמית היא 500 ש"ח.', 'amount')).toBe(true);
    expect(answersType('ההשתתפות העצמית נקובה במפרט.', 'amount')).toBe(false);
    expect(answersType('תקופת האכשרה היא 90 יום.', 'duration')).toBe(true);
    expect(answersType('ניתן להצטרף עד גיל 65.', 'age')).toBe(true);
    expect(answersType('ההחזר הוא 80% מההוצאות.', 'percentage')).toBe(true);
    expect(answersType('עד 3 גרירות בשנה.', 'count')).toBe(true);
    expect(answersType('נזק שנגרם עקב מלחמה.', 'coverage', ['חריגים'])).toBe(true);
    expect(answersType('נזק שנגרם עקב מלחמה.', 'coverage', ['הגדרות'])).toBe(false);
    expect(answersType('יש לצרף קבלות מקוריות ודוח משטרה.', 'documents')).toBe(true);
    expect(answersType('Please attach the original receipts.', 'documents')).toBe(true);
    expect(answersType('את התביעה יש להגיש בכתב למחלקת התביעות.', 'procedure')).toBe(true);
    expect(answersType('Notify the insurer as soon as possible.', 'procedure')).toBe(true);
    expect(answersType('"השתלה" - פירושה השתלת איבר מגופו של תורם.', 'definition')).toBe(true);
    expect(answersType('"Insured event" means an accident during the period of insurance.', 'definition')).toBe(true);
    expect(answersType('הביטוח בתוקף בישראל בלבד.', 'definition')).toBe(false);
    expect(answersType('ההשתתפות העצמית היא 500 ש"ח.', 'other')).toBe(false);
    // A question answers nothing, whatever it holds.
    expect(answersType('האם יש לצרף קבלות?', 'documents')).toBe(false);
  });
});
