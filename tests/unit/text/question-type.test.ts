import { describe, expect, it } from 'vitest';
import { buildAnswerPrompt, questionHint } from '../../../widget/engines/webllm/prompt.ts';
import { detectQuestionType, type QuestionType } from '../../../widget/text/question-type.ts';
import { readStandalone, readText } from '../../../widget/text/question-reading.ts';

const cases: [string, QuestionType][] = [
  // Hebrew, short.
  ['מה ההשתתפות העצמית בביטוח הרכב?', 'amount'],
  ['כמה עולה ביטוח נסיעות לשבוע?', 'amount'],
  ['מה גובה הפיצוי על אובדן מזוודה?', 'amount'],
  ['מהי תקרת ההחזר לטיפולי שיניים?', 'amount'],
  ['כמה זמן יש לי להגיש תביעה?', 'duration'],
  ['לכמה ימים מכוסה הרכב החלופי?', 'duration'],
  ['מהי תקופת האכשרה בביטוח הבריאות?', 'duration'],
  ['עד איזה גיל אפשר להצטרף לביטוח סיעודי?', 'age'],
  ['מאיזה גיל מותר לנהוג ברכב לפי הפוליסה?', 'age'],
  ['כמה אחוז מההוצאות מחזירים על משקפיים?', 'percentage'],
  ['כמה פעמים בשנה אפשר להזמין גרר?', 'count'],
  ['כמה גרירות כלולות בכתב השירות?', 'count'],
  // A singular in -ות with the article is no counted plural.
  ['כמה ההשתתפות העצמית בביטוח מקיף?', 'amount'],
  ['האם נזקי צנרת מכוסים בביטוח הדירה?', 'coverage'],
  ['האם אני זכאי להחזר על בדיקת MRI?', 'coverage'],
  ['איך מגישים תביעה על נזק מים?', 'procedure'],
  ['מה עושים אם הרכב נגנב בלילה?', 'procedure'],
  ['אילו מסמכים צריך לצרף לתביעת גניבה?', 'documents'],
  ['מה זה שיבוב?', 'definition'],
  ['מה ההגדרה של "אובדן גמור"?', 'definition'],
  ['מי אחראי לתחזוקת המעלית בבניין?', 'other'],
  // Hebrew, chatty: the story carries cues of its own; the question mark shows which part asks.
  ['שילמתי השנה 2,400 ₪ על הפוליסה וההשתתפות העצמית אצלי היא 1,000 ₪. אם אבטל עכשיו, כמה כסף יחזירו לי?', 'amount'],
  ['אני עוברת לדירה חדשה בסוף החודש – האם הרהיטים שלי יהיו מכוסים בזמן ההובלה, ולכמה ימים?', 'duration'],
  ['תשמע, ההורים שלי כבר לא צעירים וחשבתי לבטח אותם. עד איזה גיל מקבלים מצטרפים חדשים, ומה זה עולה?', 'age'],
  ['הבת שלי נפלה בגן ושברה את היד, אני ממש בלחץ. הביטוח יכסה את הטיפולים שלה?', 'coverage'],
  ['הפגוש נשרט בחניון והסוכן אמר לי משהו על כתב שירות – מה אני צריך לעשות כדי שהתיקון יהיה בלי השתתפות עצמית?', 'procedure'],
  ['קיבלתי מכתב דחייה על התביעה שלי ואני לא מבין למה. מה בדיוק צריך להגיש כדי לערער?', 'documents'],
  ['בפוליסה כתוב "מקרה ביטוח" הרבה פעמים, ואני לא בטוח שהבנתי. האם נפילה בבית נחשבת מקרה ביטוח?', 'definition'],
  ['אני בהיריון בחודש חמישי ונוסעת לחו"ל. יש תקופת המתנה לכיסוי הריון?', 'duration'],
  // English.
  ['How many tows per policy year are included in the road service?', 'count'],
  ['How much is the deductible for windshield damage?', 'amount'],
  ['What is the excess on a theft claim?', 'amount'],
  ['How long is the waiting period for surgery?', 'duration'],
  ['Up to what age can a driver be covered?', 'age'],
  ['What percentage of the sum insured is paid for jewellery?', 'percentage'],
  ['Is lost baggage covered on my travel insurance?', 'coverage'],
  ['I was hit by a scooter while abroad and the other guy wants money from me. Does my policy cover that?', 'coverage'],
  ['How do I file a claim for a broken phone?', 'procedure'],
  ['Which documents do I need to attach to a medical claim?', 'documents'],
  ['What does subrogation mean?', 'definition'],
  ['Who owns the building?', 'other'],
];

describe('detectQuestionType', () => {
  it.each(cases)('%s → %s', (question, type) => {
    expect(detectQuestionType(question)).toBe(type);
  });

  it('reads Hebrew proclitics and gershayim, and no English word boundary inside Hebrew', () => {
    expect(detectQuestionType('וכמה זמן זה לוקח?')).toBe('duration');
    expect(detectQuestionType('ומה גובה הפיצוי בש״ח?')).toBe('amount');
    // "למה" (why) is ל+מה and "כמה" is כ+מה: neither is "מה זה".
    expect(detectQuestionType('למה זה לא מכוסה?')).toBe('coverage');
    expect(detectQuestionType('למה זה קרה לי?')).toBe('other');
  });

  it('prefers the sentence that asks over the story told before it', () => {
    // The story names a deductible (an amount topic); the question asks whether something is covered.
    expect(detectQuestionType('ההשתתפות העצמית שלי 500 ₪. נשבר לי הפנס הקדמי, זה מכוסה?')).toBe('coverage');
    // Without a question mark the whole text is read.
    expect(detectQuestionType('אני רוצה לדעת אם הביטוח מכסה נזק מהצפה')).toBe('coverage');
  });
});

describe('the LLM prompt hint', () => {
  it('tells the model what the question asks for, in one line, and nothing for other questions', () => {
    expect(questionHint(readText('מה ההשתתפות העצמית בביטוח הרכב?').type)).toMatch(/asks for an amount: lead with it/);
    expect(questionHint(readText('Is lost baggage covered?').type)).toMatch(/whether something is covered/);
    expect(questionHint(readText('מי אחראי לתחזוקת המעלית בבניין?').type)).toBeNull();
    const prompt = buildAnswerPrompt({ question: 'כמה זמן יש לי להגיש תביעה?', reading: readStandalone('כמה זמן יש לי להגיש תביעה?'), lang: 'he', passages: [], history: [] }, { contextWindow: 4096 });
    const user = prompt.messages.at(-1)!.content;
    expect(user).toContain('The customer asks for a period or a deadline');
    expect(user.indexOf('The customer asks')).toBeLessThan(user.indexOf('<sources>'));
  });
});
