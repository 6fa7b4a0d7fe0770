/**
 * Whether a clause decides cover, and how — only where it says so in so many words. A verdict
 * shown to a customer is a promise, so every rule leans to "no verdict" (null):
 * - excluded: a negation of cover ("לא יכסה", "אינו מכוסה", "אינו זכאי", "לא ישולמו תגמולי ביטוח",
 *   "המבטח לא יהיה אחראי", "is not covered", "we will not pay"), or a clause in an exclusions
 *   section ("חריגים", "סייגים", "Exclusions", "What is not covered") that neither states cover
 *   nor lifts an exclusion ("סייג זה לא יחול", "does not apply", "ביטול החריג");
 * - covered: an explicit statement of cover ("יהיה מכוסה", "המבטח ישלם", "we will pay", "is
 *   covered") outside an exclusions section;
 * - conditional: such a statement that carries a condition ("בתנאי ש", "ובלבד ש", "provided that",
 *   "subject to" — but not "subject to the terms of the policy", which every clause is).
 * No verdict when a clause both grants and denies, when a negation is itself the condition ("אם
 * דמי הביטוח לא ישולמו" is about the premium), when cover depends on "unless" ("אלא אם"), or when
 * the clause is about another insurance paying ("פוליסה אחרת").
 */
import { cueText, phrases } from './cue-patterns.ts';
import { isDefinition } from './sentence-forms.ts';

export type Verdict = 'covered' | 'excluded' | 'conditional';

const NEGATION = phrases(
  [
    '(?:לא|אינו|אינה|אינם|אינן) (?:יכסה|תכסה|יכסו|מכסה|מכסים|מכסות|יכוסה|יכוסו|תכוסה|מכוסה|מכוסים|מכוסות)',
    '(?:ה)?(?:כיסוי|ביטוח|פוליסה|פיצוי|שיפוי|תגמולי ביטוח|הרחבה) (?:\\S+ ){0,3}?(?:לא|אינו|אינה|אינם) (?:כולל|כוללת|כוללים|יכלול|תכלול)',
    '(?:לא|אינו|אינה|אינם|אינן) (?:יהיה |תהיה |יהיו |יהא )?(?:זכאי|זכאית|זכאים|זכאיות)',
    '(?:לא|אינו|אינה) (?:יהיה|תהיה|יהא) (?:ה)?(?:מבטח|חברה|הראל) (?:אחראי|אחראית|חייב|חייבת)',
    '(?:ה)?(?:מבטח|חברה|הראל|מבטחת) (?:\\S+ )?(?:לא|אינו|אינה) (?:יהיה |תהיה |יהא )?(?:אחראי|אחראית|חייב|חייבת|ישלם|תשלם|ישפה|תשפה|יפצה|תפצה)',
    'לא (?:ישלם|תשלם|ישלמו|ישפה|תשפה|יפצה|תפצה) (?:ה)?(?:מבטח|חברה|הראל)',
    '(?:תגמולי (?:ה)?ביטוח|פיצוי|שיפוי|תגמולים) (?:\\S+ ){0,3}?לא (?:ישולם|ישולמו|תשולם)',
    'לא (?:ישולם|ישולמו|תשולם|יינתן|ינתן) (?:\\S+ ){0,2}?(?:תגמולי|פיצוי|שיפוי|כיסוי|תגמול)',
    'אין (?:ה)?(?:מבטח|חברה) (?:אחראי|אחראית|חייב|חייבת)',
    'אין כיסוי|ללא כיסוי|לא יינתן כיסוי|לא יהיה כיסוי|לא תהיה זכאות',
    '(?:ה)?(?:כיסוי|ביטוח|הרחבה) (?:\\S+ ){0,3}?לא (?:יחול|תחול|יחולו)',
    '(?:ה)?חריגים (?:\\S+ ){0,2}?לא (?:יבוטלו|יבוטל)',
    'מוחרג|מוחרגת|מוחרגים|מוחרגות',
  ],
  'any',
);
const EN_NEGATION = phrases(
  [
    "(?:is|are|will|shall|be|was|were)(?: not|n't)(?: be)? (?:covered|insured|indemnified|paid|reimbursed|payable|included)",
    '(?:is|are|will be|shall be|be) excluded',
    "(?:we|the insurer|the company|the insurance|this policy|the policy)(?: will| shall| does| do)?(?: not|n't) (?:pay|cover|indemnify|reimburse|compensate|be liable|be responsible)",
    "(?:does|do|will|shall)(?: not|n't) cover",
    'no (?:cover|coverage|liability|compensation|indemnity)',
    'not (?:be )?(?:liable|entitled|eligible)',
  ],
  'none',
);
const COVER = phrases(
  [
    '(?:ה)?(?:מבטח|חברה|הראל|מבטחת|ביטוח|פוליסה|כיסוי|הרחבה|נספח|פרק זה|פוליסה זו|כיסוי זה|הרחבה זו) (?:\\S+ ){0,2}?(?:ישלם|ישלמו|תשלם|ישפה|תשפה|יפצה|תפצה|יכסה|תכסה|מכסה|יחזיר|תחזיר|יעניק|תעניק|מעניק|מעניקה)',
    '(?:ישלם|תשלם|ישפה|תשפה|יפצה|תפצה|יחזיר|תחזיר) (?:ה)?(?:מבטח|חברה|הראל)',
    '(?:ה)?(?:ביטוח|פוליסה|כיסוי) (?:\\S+ ){0,2}?(?:מורחב|מורחבת) לכסות',
    '(?:יהיה|יהא|תהיה|תהא|יהיו|הינו|הינה|הינם|הוא|היא|הם) (?:\\S+ )?(?:מכוסה|מכוסים|מכוסות|זכאי|זכאית|זכאים)',
    'יכוסה|יכוסו|תכוסה',
    '(?:מכוסה|מכוסים|מכוסות) (?:במסגרת|לפי|על פי|בפוליסה|בביטוח|בכיסוי)',
    '(?:זכאי|זכאית|זכאים) (?:ל)?(?:החזר|פיצוי|תגמולי|שיפוי|כיסוי|תשלום|מימון|קבלת)',
    '(?:ישולמו|ישולם|תשולם) (?:\\S+ ){0,2}?(?:תגמולי|פיצוי|שיפוי|החזר)',
    '(?:ה)?כיסוי (?:כולל|יכלול)',
  ],
  'any',
);
const EN_COVER = phrases(
  [
    '(?:is|are|will be|shall be|be|remain|remains) (?:also )?covered',
    '(?:we|the insurer|the company|the insurance|this policy|the policy|this extension|this cover) (?:will|shall) (?:also )?(?:pay|cover|indemnify|reimburse|compensate)',
    '(?:will|shall) indemnify',
    '(?:is|are|shall be|will be) entitled to',
    '(?:this|the) (?:policy|insurance|extension|cover|chapter) (?:covers|includes)',
    '(?:is|are) extended to cover',
  ],
  'none',
);
const CONDITION = phrases(
  [
    'בתנאי ש\\S*',
    'בתנאי כי',
    'ובלבד ש\\S*',
    'ובלבד כי',
    'רק אם',
    'אך ורק אם',
    'רק במקרה ש\\S*',
    'בכפוף ל(?!תנאי|גבול|סכום|תקרה|הוראות|אמור|השתתפות)\\S*',
    'בתנאי(?! (?:ה)?(?:פוליסה|ביטוח|כיסוי|הרחבה))',
  ],
  'any',
);
const EN_CONDITION = phrases(
  ['provided (?:always )?that', 'on condition that', 'only if', 'as long as', 'subject to (?!the (?:terms|conditions|provisions|limit|limits|sum|deductible|excess)|this policy|the policy)'],
  'none',
);
/** Cover that another clause undoes or that waits on something else: no verdict. */
const DOUBT = phrases(['אלא אם', 'אלא במקרה', 'למעט אם', 'למעט במקרה', 'על אף האמור', 'למרות האמור', 'פוליסה אחרת', 'ביטוח אחר'], 'any');
const EN_DOUBT = phrases(['unless', 'except if', 'except where', 'except when', 'notwithstanding', 'other insurance', 'another policy', 'other policy'], 'none');
/** A carve-out ("למעט", "except"): an exclusions-section item with one excludes only part. */
const CARVE_OUT = phrases(['למעט', 'פרט ל\\S*', 'except', 'excluding', 'other than'], 'any');
/** "… יכוסה אם …": cover that holds only if something is so. */
const IF_AFTER = phrases(['אם', 'if', 'when'], 'vav');
/** What lifts an exclusion: a clause saying so inside an exclusions section is no exclusion. */
const LIFTS = phrases(['לא (?:יחול|תחול|יחולו)', '(?:אינו|אינה|אינם) (?:חל|חלה|חלים)', 'ביטול (?:ה)?חריג\\S*', 'הרחבה'], 'any');
const EN_LIFTS = phrases(["(?:does|do|will|shall)(?: not|n't) apply", 'cancellation of (?:the )?exclusion', 'extension'], 'none');
const EXCLUSIONS = phrases(['חריג|חריגים|חריגי|סייג|סייגים|סייגי|החרגות|מה לא מכוסה|לא מכוסים|אינם מכוסים'], 'any');
const EN_EXCLUSIONS = phrases(['exclusions?', 'what is not covered', 'not covered'], 'none');
const EXCLUSIONS_SENTENCE = phrases(['(?:ייחשב|יחשב|תיחשב|תחשב|ייחשבו|יחשבו|יהווה|תהווה) (?:כ|ל)?חריג'], 'any');
/** A sentence that opens with the heading itself ("חריגים: …", "Exclusions - …"). */
const EXCLUSIONS_OPENING = /^[\d.\s()-]*(?:ה?(?:חריגים|סייגים)|exclusions?|what is not covered)(?![\u05D0-\u05EAa-z])/u;
/** A cue inside an "if …" clause is the condition, not the verdict. */
const IF_BEFORE = /(?:^|[\s(])(?:ו?אם|ו?במידה|ככל|if|where|in case)\s+[^,;:]*$/u;

function found(res: readonly RegExp[], text: string): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  for (const re of res) for (const m of text.matchAll(re)) out.push({ start: m.index, end: m.index + m[0].length });
  return out;
}

function any(res: readonly RegExp[], text: string): boolean {
  return found(res, text).length > 0;
}

function inIfClause(text: string, at: number): boolean {
  return IF_BEFORE.test(text.slice(Math.max(0, at - 60), at));
}

function isExclusionsHeading(heading: string): boolean {
  const text = cueText(heading);
  return any([EXCLUSIONS, EN_EXCLUSIONS], text) && !any([LIFTS, EN_LIFTS], text);
}

export function coverageVerdict(sentence: string, sectionPath: readonly string[]): Verdict | null {
  const text = cueText(sentence);
  // A question (an FAQ heading: "האם הביטוח מכסה…?") decides nothing.
  if (/\?\s*$/u.test(text) || any([DOUBT, EN_DOUBT], text)) return null;
  const negations = found([NEGATION, EN_NEGATION], text).filter((m) => !inIfClause(text, m.start));
  // "אינו מכוסה" must not count as "מכוסה" below.
  let rest = text;
  for (const m of negations) rest = rest.slice(0, m.start) + ' '.repeat(m.end - m.start) + rest.slice(m.end);
  const covers = found([COVER, EN_COVER], rest).filter((m) => !inIfClause(rest, m.start));
  const lifts = any([LIFTS, EN_LIFTS], text);
  const inExclusions = (sectionPath.some(isExclusionsHeading) || EXCLUSIONS_OPENING.test(text) || any([EXCLUSIONS_SENTENCE], text)) && !lifts;
  const conditioned = any([CONDITION, EN_CONDITION], text);
  // Denied, but only on a condition ("מוחרגת רק אם…"): whether it applies is the customer's case.
  if (negations.length > 0) return covers.length > 0 || conditioned ? null : 'excluded';
  if (covers.length > 0) {
    // Cover stated inside an exclusions section is an exception to an exclusion: in doubt.
    if (inExclusions) return null;
    const ifAfter = found([IF_AFTER], rest).some((m) => m.start > covers[0].start);
    return conditioned || ifAfter ? 'conditional' : 'covered';
  }
  // A definition, the lead-in of a list ("החריגים הבאים:") or an item with a carve-out decides nothing itself.
  if (inExclusions && !isDefinition(sentence) && !/:\s*$/u.test(text) && !any([CARVE_OUT], text)) return 'excluded';
  return null;
}
