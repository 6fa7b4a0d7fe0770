/**
 * Sentence forms that answer the questions which ask for no quantity: a definition ("'השתלה'
 * פירושו…", "X means…"), the steps of a procedure ("יש להגיש…", "notify us…", a channel to use),
 * a list of documents ("יש לצרף…", "attach…"). Matched on the tokenizer's normalised text.
 */
import { cueText, phrases } from './cue-patterns.ts';

const DEFINITION = phrases(
  ['פירושו', 'פירושה', 'פירושם', 'פירושן', 'משמעו', 'משמעה', 'משמעותו', 'משמעותה', 'משמעם', 'מוגדר(?:ת|ים|ות)? כ\\S+', 'ייחשב(?:ו)? כ\\S+', 'יחשב(?:ו)? כ\\S+', 'תיחשב כ\\S+'],
  'any',
);
const EN_DEFINITION = phrases(['means', 'shall mean', 'is defined as', 'are defined as', 'refers to', 'shall be deemed'], 'none');
/** '"מקרה ביטוח" - …' / '"Insured event": …' opening a sentence, or "X – הוא …". */
const DEFINED_TERM = /^[\d.\s()-]*"[^"]{1,60}"\s*[-:]|\s-\s*(?:הוא|היא|הם|הן|הינו|הינה|הינם)\s/u;

const PROCEDURE = phrases(
  [
    'יש ל(?:הגיש|פנות|הודיע|מלא|שלוח|דווח|התקשר|בקש|העביר|מסור|היכנס|צלם|תאם)',
    '(?:עליך|עלייך|עליכם|על המבוטח|על המנוי|על התובע|על המבקש) (?:\\S+ ){0,2}?(?:להגיש|לפנות|להודיע|למלא|לשלוח|לדווח|להתקשר|לבקש|להעביר|למסור)',
    '(?:ניתן|אפשר) (?:\\S+ ){0,2}?(?:להגיש|לפנות|לשלוח|לבטל|להתקשר|להודיע|למלא|לבקש|להיכנס|לדווח)',
    'פנו|התקשרו|שלחו|מלאו|הגישו|היכנסו|צרו קשר',
    'בטלפון|בפקס|בדואר|במייל|בדוא"ל|באתר|באפליקציה|באזור האישי|במוקד|באמצעות טופס',
  ],
  'any',
);
const EN_PROCEDURE = phrases(
  [
    'notify',
    'call',
    'contact',
    'submit',
    'send',
    'fill in',
    'fill out',
    'complete the form',
    'report',
    'apply',
    'phone',
    'e-mail',
    'email',
    'website',
    'by fax',
    'by mail',
    'must be (?:filed|submitted|sent|reported|notified)',
  ],
  'none',
);

const DOCUMENTS = phrases(
  [
    'יש לצרף',
    'לצרף',
    'בצירוף',
    'יצורפ\\S*',
    'מצורפ\\S*',
    'המסמכים הבאים',
    'מסמכים',
    'מסמך',
    'אישורים',
    'אישור רפואי',
    'קבלות',
    'קבלה מקורית',
    'חשבוניות',
    'חשבונית',
    'העתק',
    'צילום',
    'דוח משטרה',
    'דו"ח משטרה',
    'תעודת',
    'סיכום מחלה',
    'מכתב שחרור',
  ],
  'any',
);
const EN_DOCUMENTS = phrases(
  ['attach', 'attached', 'enclose', 'enclosed', 'documents?', 'receipts?', 'invoices?', 'copy of', 'copies of', 'certificate', 'police report', 'medical records', 'proof of', 'discharge letter'],
  'none',
);

function test(re: RegExp, text: string): boolean {
  re.lastIndex = 0;
  return re.test(text);
}

export function isDefinition(sentence: string): boolean {
  const text = cueText(sentence);
  return test(DEFINITION, text) || test(EN_DEFINITION, text) || DEFINED_TERM.test(text);
}

export function describesProcedure(sentence: string): boolean {
  const text = cueText(sentence);
  return test(PROCEDURE, text) || test(EN_PROCEDURE, text);
}

export function listsDocuments(sentence: string): boolean {
  const text = cueText(sentence);
  return test(DOCUMENTS, text) || test(EN_DOCUMENTS, text);
}
