/**
 * What kind of answer a question asks for, Hebrew or English, from cue phrases (no model): an
 * amount, a duration, an age, a percentage, a count, whether something is covered, a procedure,
 * documents, a definition, or none of these ('other').
 *
 * Customers' questions are long and chatty ("I bought contents insurance and now I have a
 * dilemma – is the cover for my jewellery limited to some percentage of the sum insured?"), and
 * one question often holds several cues. Which one asks:
 * 1. Where: cues in the sentences that end with a question mark, when there are any; the story
 *    before them ("the excess in my policy is 4,000 NIS. How much will I get?") only when they
 *    hold no cue at all.
 * 2. Then precedence, strongest first:
 *    a. a quantity asked outright ("כמה זמן", "עד איזה גיל", "באיזה אחוז", "how many", "how much"),
 *       earliest first: "is it covered for how many days?" is answered by the number of days;
 *    b. documents ("אילו מסמכים", "which documents");
 *    c. a procedure ("איך מגישים", "מה עושים אם", "how do I");
 *    d. cover ("האם מכוסה", "הביטוח יכסה", "am I covered");
 *    e. a vague "כמה" (how many/much with neither a unit nor money after it);
 *    f. a definition ("מה זה", "מהו", "what does … mean") — unless the word right after
 *       "מהו/מהי" is a topic below ("מהי תקופת האכשרה" asks for the period);
 *    g. a topic that is usually asked for its value ("השתתפות עצמית", "תקרה", "תקופת אכשרה",
 *       "deductible", "waiting period").
 *    At equal precedence the earlier cue wins, and at the same place the longer one ("how much
 *    time" over "how much").
 */
import { cueText, END, phrases, START, wordSet } from './cue-patterns.ts';
import { prefixStrippings } from '../core/tokenizer/index.ts';

export type QuestionType = 'amount' | 'duration' | 'age' | 'percentage' | 'count' | 'coverage' | 'procedure' | 'documents' | 'definition' | 'other';

/**
 * One line on what each kind of question asks for, so a small model leads with it (none for
 * 'other'): the web-llm and GGUF engines' prompt (engines/webllm/prompt.ts) adds it to its rules.
 * Beside the kinds, so a new kind cannot go without one.
 */
export const QUESTION_TYPE_HINTS: Record<Exclude<QuestionType, 'other'>, string> = {
  amount: 'The customer asks for an amount: lead with it if a source states it.',
  duration: 'The customer asks for a period or a deadline: lead with it if a source states it.',
  age: 'The customer asks about an age limit: lead with it if a source states it.',
  percentage: 'The customer asks for a percentage: lead with it if a source states it.',
  count: 'The customer asks how many: lead with the number if a source states it.',
  coverage: 'The customer asks whether something is covered: open with yes, no or "covered with conditions" only if a source says so explicitly.',
  procedure: 'The customer asks how to do something: give the steps the sources describe.',
  documents: 'The customer asks which documents are needed: list the ones the sources name.',
  definition: 'The customer asks what a term means: give the definition the sources state.',
};

/** Precedence of a cue (lower wins); see the header. */
const QUANTITY = 1;
const DOCUMENTS = 2;
const PROCEDURE = 3;
const COVERAGE = 4;
const VAGUE_QUANTITY = 5;
const DEFINITION = 6;
const TOPIC = 7;

interface Cue {
  type: QuestionType;
  rank: number;
  re: RegExp;
  /** "מהו/מהי": a definition only when no topic follows it. */
  yieldsToTopic?: boolean;
}

interface Hit {
  type: QuestionType;
  rank: number;
  index: number;
  end: number;
  yieldsToTopic: boolean;
}

const he = (type: QuestionType, rank: number, sources: string[], prefix: 'any' | 'vav' = 'vav'): Cue => ({ type, rank, re: phrases(sources, prefix) });
const en = (type: QuestionType, rank: number, sources: string[]): Cue => ({ type, rank, re: phrases(sources, 'none') });

const CUES: Cue[] = [
  he('amount', QUANTITY, ['מה(?:ו|י)? (?:ה)?(?:סכום|גובה|מחיר|עלות|תקרה|תקרת|גבול|מקסימום)', '(?:עד |ב)?(?:איזה|איזו) (?:סכום|תקרה|מחיר)', 'עד כמה (?:כסף|שקלים|ש"ח)']),
  he('amount', QUANTITY, ['(?:ה)?סכום (?:ה)?(?:מקסימלי|מרבי|מירבי|כולל)', '(?:ה)?גבול (?:ה)?עליון'], 'any'),
  en('amount', QUANTITY, [
    'how much',
    "what(?: is|'s| are) the (?:amount|cost|price|premium|limit|maximum|max|deductible|excess|sum|fee|fees|ceiling|cap|payout|compensation|reimbursement|refund)",
    'what (?:does|will) (?:it|this|that) cost',
    'how high',
  ]),
  he('duration', QUANTITY, [
    '(?:תוך|בתוך|כעבור|אחרי|לאחר|כל|למשך) כמה',
    '(?:ל|ב)?כמה (?:זמן|ימים|יום|ימי|שבועות|שבוע|חודשים|חודש|שנים|שנה|שעות|שעה|דקות)',
    'עד מתי',
    'ממתי',
    'מה (?:ה)?משך',
    '(?:ל|ב)?(?:איזו|איזה) (?:תקופה|פרק זמן)',
  ]),
  en('duration', QUANTITY, [
    'how long',
    'how much time',
    'how many (?:business |working |calendar )?(?:days|weeks|months|years|hours|minutes)',
    'within how (?:many|much|long)',
    'until when',
    'by when',
    'how soon',
    'how far in advance',
    "what(?: is|'s) the (?:waiting|qualifying|notice|limitation|cooling-off|cooling off|grace|deferment|elimination) period",
    'for what period',
  ]),
  he('age', QUANTITY, ['(?:עד |מ|ב|מעל )?(?:איזה|איזו) גיל', '(?:מ|ל|עד )?גיל כמה', '(?:בן|בת|בני|בנות) כמה', 'מה (?:ה)?גיל']),
  he('age', QUANTITY, ['(?:ה)?גיל (?:ה)?(?:מקסימלי|מינימלי|מרבי|מירבי|מזערי)', '(?:מגבלת|הגבלת|מגבלות|הגבלות) (?:ה)?גיל'], 'any'),
  en('age', QUANTITY, ['how old', '(?:what|which) age', 'age (?:limit|limits|restriction|restrictions|requirement|requirements)', '(?:maximum|minimum|max|min|upper|lower) age']),
  he('percentage', QUANTITY, ['אחוז(?:ים)?'], 'any'),
  he('percentage', QUANTITY, ['מה (?:ה)?שיעור', '(?:ב)?(?:איזה|איזו) שיעור']),
  en('percentage', QUANTITY, ['percent(?:age|ages)?', 'per cent', 'what (?:share|proportion)']),
  he('count', QUANTITY, ['(?:ל|ב)?כמה (?:פעמים|פעם)', 'מה (?:ה)?מספר(?! (?:ה)?(?:טלפון|פקס))', '(?:ב)?(?:איזו|איזה) תדירות']),
  en('count', QUANTITY, ['how many', 'how often', 'how frequently', "what(?: is|'s) the number of", 'number of times']),

  he('documents', DOCUMENTS, [
    '(?:אילו|איזה|אלו|אלה) (?:מסמכים|מסמך|טפסים|טופס|אישורים|אישור|קבלות|ניירת|אסמכתאות)',
    'מה (?:ה)?(?:מסמכים|טפסים|אישורים)',
    'מה (?:\\S+ ){0,2}?(?:לצרף|להביא|להמציא|להציג|להגיש)',
  ]),
  en('documents', DOCUMENTS, [
    '(?:which|what) (?:documents|document|forms|form|paperwork|papers|certificates|receipts|proof|evidence)',
    'what (?:do|should|must|shall) (?:i|we) (?:need to )?(?:attach|submit|provide|bring|send|enclose|present)',
  ]),

  he('procedure', PROCEDURE, [
    '(?:איך|כיצד) (?:\\S+ )?(?:אני|אנחנו|אפשר|ניתן|עליי|עלי|עלינו)',
    '(?:איך|כיצד) (?:מגישים|מגיש|מגישה|להגיש|עושים|לעשות|פונים|לפנות|מבטלים|לבטל|תובעים|לתבוע|מדווחים|לדווח|מקבלים|לקבל|מצטרפים|להצטרף|משנים|לשנות|מעדכנים|לעדכן|מפעילים|להפעיל|מזמינים|להזמין|נרשמים|להירשם|מחדשים|לחדש|מאריכים|להאריך|מוסיפים|להוסיף|מבקשים|לבקש|ממשים|לממש)',
    'מה (?:\\S+ ){0,2}?(?:לעשות|עושים)',
    'לאן (?:\\S+ ){0,2}?(?:לפנות|פונים|פונה|לשלוח|שולחים|שולח|שולחת|אשלח|להגיש|מגישים|מגיש|להתקשר|מתקשרים|לגשת)',
    'מה (?:ה)?(?:כתובת|מספר (?:ה)?טלפון|טלפון|מייל|פקס)',
    '(?:ל|ב)?(?:איזו|איזה) (?:כתובת|מספר טלפון|טלפון|מייל|פקס|סניף|מוקד)',
    'למי (?:\\S+ ){0,2}?(?:לפנות|פונים|להודיע|מודיעים|לשלוח|להגיש|להתקשר|לדווח)',
    '(?:איפה|היכן) (?:\\S+ ){0,2}?(?:מגישים|להגיש|ממלאים|למלא|פונים|לפנות|מבטלים|לבטל)',
    'מה (?:ה)?(?:תהליך|נוהל|הליך|שלבים)',
    '(?:באיזה|באיזו) (?:אופן|דרך)',
  ]),
  en('procedure', PROCEDURE, [
    'how (?:do|can|should|would|could|must|shall) (?:i|we|you|one)',
    'how to',
    'what (?:do|should|must|can|shall) (?:i|we) do',
    'what to do',
    'where (?:do|can|should|must|shall) (?:i|we) (?:send|submit|file|report|apply|go|call|get)',
    'who (?:do|should|can|must|shall) (?:i|we) (?:contact|call|notify|tell|inform|ask)',
    "what(?: is|'s) the (?:procedure|process|way) (?:to|for)",
  ]),

  he(
    'coverage',
    COVERAGE,
    [
      'מכסה|מכסים|מכסות|יכסה|יכסו|תכסה|תכסו|יכוסה|יכוסו|תכוסה|מכוסה|מכוסים|מכוסות',
      'מוגן|מוגנת|מוגנים|מוגנות|זכאי|זכאית|זכאים|זכאיות',
      'ישלמו|ישלם|תשלם|ישפה|ישפו|תשפה|יפצה|יפצו|תפצה',
      'נכלל|נכללת|נכללים|כלול|כלולה|כלולים|כלולות',
      'יש (?:לי |לנו )?(?:כיסוי|החזר|פיצוי|הגנה)',
      'מגיע (?:לי|לנו)',
      '(?:יכול|יכולה|יכולים|אפשר|ניתן) (?:\\S+ )?לקבל (?:החזר|פיצוי|כיסוי|תשלום|שיפוי)',
    ],
    'any',
  ),
  en('coverage', COVERAGE, [
    'cover(?:s|ed|ing|age)?',
    'pays? (?:for|out)',
    'will (?:\\S+ ){0,3}?pay',
    'reimburs(?:e|ed|es|ement)',
    'eligible',
    'entitled',
    'included',
    'insured (?:for|against)',
    'protected',
  ]),

  { ...he('definition', DEFINITION, ['מה(?:ו|י)']), yieldsToTopic: true },
  he('definition', DEFINITION, [
    'מה (?:זה|זו|זאת)',
    'מה (?:ה)?(?:פירוש|משמעות|כוונה|הגדרה)',
    'מה פירושו',
    '(?:איך|כיצד) (?:מוגדר|מוגדרת|מוגדרים|מוגדרות|מגדירים)',
    '(?:מה|מי) (?:נחשב|נחשבת|נחשבים|ייחשב|יחשב|תיחשב|נקרא)',
  ]),
  he('definition', DEFINITION, ['נחשב|נחשבת|נחשבים|נחשבות|ייחשב|יחשב|תיחשב|תחשב|ייחשבו|יחשבו'], 'any'),
  en('definition', DEFINITION, [
    'what does (?:\\S+ ){1,6}?mean',
    'what is meant by',
    'meaning of',
    'define',
    'definition of',
    'what counts as',
    'considered (?:a|an|as|to be)',
    "what(?: is|'s) (?!the |my |your |it |this |that )[a-z-]+",
    'what are (?!the |my |your |these |those )[a-z-]+',
  ]),

  he('amount', TOPIC, ['השתתפות (?:ה)?עצמית', 'תקרה', 'תקרת', 'גבול (?:ה)?אחריות', 'גבולות (?:ה)?אחריות'], 'any'),
  he('duration', TOPIC, ['תקופת (?:ה)?(?:אכשרה|המתנה|התיישנות)', 'התיישנות'], 'any'),
  en('amount', TOPIC, ['deductible', 'excess', 'ceiling', 'limit of liability', 'liability limit', 'sum insured']),
  en('duration', TOPIC, ['waiting period', 'qualifying period', 'limitation period', 'notice period']),
];

const HOW_MANY = new RegExp(`${START}ו?(?:עד\\s+|ל|ב)?כמה${END}`, 'gu');
const UNITS = wordSet('זמן ימים יום ימי שבוע שבועות חודש חודשים שנה שנים שעה שעות דקות');
const TIMES = wordSet('פעמים פעם');
const PERCENT = wordSet('אחוז אחוזים');
const MONEY = wordSet(
  'כסף עולה עולים עלה תעלה יעלה עלות אשלם נשלם ישלמו ישלם תשלם תשלמו משלמת משלם משלמים אקבל נקבל יקבל תקבל תקבלו ' +
    'מקבל מקבלים יחזיר יחזירו תחזיר מחזיר מחזירים מחזירה החזר פיצוי יכסה יכסו תכסה מכסה מכסים מכסות ש"ח שקל שקלים ' +
    'דולר דולרים פרמיה דמי מגיע מגיעים ישולם ישולמו',
);

function isMoney(word: string): boolean {
  return MONEY.has(word) || prefixStrippings(word).some((w) => MONEY.has(w));
}

/**
 * A plural noun counted after "כמה" ("כמה מפגשים", "כמה גרירות"): indefinite, so not "כמה
 * ההשתתפות העצמית" (a singular in -ות, with the article: how much is the deductible).
 */
function isCounted(word: string): boolean {
  return /^[\u05D0-\u05EA]{2,}(?:ימ|ות)$/u.test(word) && !word.startsWith('ה') && !isMoney(word);
}

/**
 * "כמה" followed by neither a unit nor a listed cue: a count when a counted noun follows
 * ("כמה מפגשים"), an amount when money is spoken of in the same clause ("כמה הפוליסה משלמת"),
 * else vaguely an amount ("כמה אקבל" is money far more often than anything else).
 */
function howManyHits(text: string): Hit[] {
  const hits: Hit[] = [];
  for (const m of text.matchAll(HOW_MANY)) {
    const end = m.index + m[0].length;
    const clause = text.slice(end).split(/[,.?!;:]/u)[0];
    const words = clause.match(/[\u05D0-\u05EA"']+|[a-z]+|\d+/gu) ?? [];
    const next = words[0] ?? '';
    const hit = (type: QuestionType, rank: number): Hit => ({ type, rank, index: m.index, end, yieldsToTopic: false });
    if (UNITS.has(next)) hits.push(hit('duration', QUANTITY));
    else if (TIMES.has(next)) hits.push(hit('count', QUANTITY));
    else if (PERCENT.has(next)) hits.push(hit('percentage', QUANTITY));
    else if (isCounted(next)) hits.push(hit('count', QUANTITY));
    else if (words.some(isMoney)) hits.push(hit('amount', QUANTITY));
    else hits.push(hit('amount', VAGUE_QUANTITY));
  }
  return hits;
}

function hitsIn(text: string): Hit[] {
  const hits = howManyHits(text);
  for (const cue of CUES) {
    for (const m of text.matchAll(cue.re)) {
      hits.push({ type: cue.type, rank: cue.rank, index: m.index, end: m.index + m[0].length, yieldsToTopic: cue.yieldsToTopic ?? false });
    }
  }
  // "מהי תקופת האכשרה?" asks for the period, not for what a waiting period is.
  return hits.filter((h) => !h.yieldsToTopic || !hits.some((t) => t.rank === TOPIC && t.index >= h.end && /^\s*$/u.test(text.slice(h.end, t.index))));
}

/** Where the sentences that ask (hold a question mark) lie in `text`, as [start, end) ranges. */
function askingSpans(text: string): [number, number][] {
  const spans: [number, number][] = [];
  let start = 0;
  for (const m of [...text.matchAll(/(?<=[.!?;\u061F])\s+|\n+/gu), null]) {
    const end = m ? m.index : text.length;
    if (/[?\u061F]/u.test(text.slice(start, end))) spans.push([start, end]);
    if (m) start = m.index + m[0].length;
  }
  return spans;
}

/**
 * The sentences of `question` that ask (hold a question mark), joined; the whole question when
 * none does. A customer's story before the question ("אני בן 64, מתכוון להצטרף…") says who asks,
 * not what: the words a quoted sentence must share are the asking sentences'.
 */
export function askingText(question: string): string {
  const spans = askingSpans(question);
  return spans.length === 0 ? question : spans.map(([s, e]) => question.slice(s, e)).join(' ');
}

function best(hits: readonly Hit[]): Hit | null {
  let top: Hit | null = null;
  for (const h of hits) {
    if (!top || h.rank < top.rank || (h.rank === top.rank && (h.index < top.index || (h.index === top.index && h.end > top.end)))) top = h;
  }
  return top;
}

export function detectQuestionType(question: string): QuestionType {
  const text = cueText(question);
  const hits = hitsIn(text);
  const spans = askingSpans(text);
  const asking = hits.filter((h) => spans.some(([s, e]) => h.index >= s && h.index < e));
  return (best(asking) ?? best(hits))?.type ?? 'other';
}
