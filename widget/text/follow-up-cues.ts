/**
 * The words that make a short question lean on the one before it: a continuation opener
 * ("ומה לגבי רכב?", "ולחו"ל?", "and for abroad?", "what about…") or a reference back
 * ("כמה זה עולה?", "is it covered?"). Pure text tests, no model: analyze.ts decides what they mean.
 *
 * Both lists err on the side of "not a follow-up": a missed follow-up costs a vaguer search, a
 * false one searches a new topic ("מה מזג האוויר מחר?") as the previous insurance question.
 * So a bare question word ("מה", "כמה", "what") opens nothing, and pronouns that refer to nothing
 * said before are set aside first: "what time is it", "this weekend", "is there…", "מה זה ביטקוין?".
 */
import { normalizeText, tokenize } from '../core/tokenizer/index.ts';

const norm = (words: string): string[] => normalizeText(words).split(/\s+/);

// Written as typed and normalised like the text it is tested on: "עם" must meet its folded final letter.
const CONTINUATION = new RegExp(
  normalizeText(String.raw`^(?:ו?מה\s+(?:לגבי|עם|בנוגע|בקשר|אם)|ו?לגבי|ו?בנוגע|גם|או|and|also|or|plus|then|what\s+about|how\s+about|what\s+if|same\s+for|what\s+of)(?=[\s?,.!]|$)`),
  'iu',
);

/** "for kids too?", "and the car as well?" */
const CONTINUATION_END = /\b(?:too|as\s+well)\s*[?.!]*$/i;

/**
 * "ו" glued to the first word is the Hebrew "and…": "ומה", "ולחו"ל", "ובדירה". Words that merely
 * begin with ו are told apart by their second letter (ויזה, וילה, וולט, וירוס) or listed here.
 */
const VAV_WORDS = new Set(norm('ועד ועדה ורד ורוד ותיק ותיקה ותק וטרינר וטרינרית ואדי ואלס ונציה ואן ואקום ואטסאפ'));

function opensWithVav(first: string): boolean {
  return /^ו[^וי\s"']/.test(first) && first.replace(/["']/g, '').length >= 3 && !VAV_WORDS.has(first);
}

const HEBREW_REFERENCE = new Set(norm('זה זו זאת הוא היא הם הן אותו אותה אותם אותן זהו זוהי שלו שלה שלהם שלהן בזה לזה עליו עליה עליהם הזה הזאת הזו כזה כזאת'));
/** Verbs that keep "מה זה", "כמה זה" a reference ("מה זה כולל?", "כמה זה עולה?") rather than "what is X", "how much is 17×23". */
const REFERENCE_VERBS = new Set(
  norm('כולל כוללת כוללים אומר אומרת אומרים עולה עולים עולות יעלה יוצא יוצאת מכסה מכסים יכסה נותן נותנת דורש דורשת מגיע מגיעה משנה שווה מחזיר משלם משלמים לוקח נמשך תקף'),
);
/** Pronouns that keep their reference with a prefix ("בזה", "לזה"); "בהם", "לו" are as often a relative clause's ("המקומות שכדאי לבקר בהם"). */
const PREFIXED_REFERENCE = new Set(norm('זה זו זאת'));
const HEBREW_TIME = norm('שבוע סופ"ש חודש שנה ערב בוקר לילה יום קיץ חורף סתיו אביב עונה פעם').join('|');
const HEBREW_NON_REFERENCE = [
  // "השבוע הזה", "בסופ"ש הזה": a demonstrative pointing at a time, not back at the conversation.
  new RegExp(`(?:^|\\s)[בל]?ה(?:${HEBREW_TIME})\\s+(?:הזה|הזאת|הזו)(?=[\\s?,.!]|$)`, 'gu'),
];

const ENGLISH_REFERENCE = /\b(?:it|its|this|that|these|those|they|them|their|there)\b|\b(?:which|this|that|other)\s+one\b/i;
const ENGLISH_NON_REFERENCE = [
  /\bwhat\s+(?:time|day|date)\s+is\s+it\b/gi,
  /\bhow\s+(?:hot|cold|warm|windy|humid|late|early)\s+(?:is|does|will)\s+it\b/gi,
  /\b(?:is|was)\s+it\s+(?:\w+\s+)?(?:bad|good|ok|okay|safe|better|worse|possible|normal|healthy|true|smart|wise|legal|hard|easy|necessary)\s+(?:to|that|if)\b/gi,
  /\b(?:hey|hi|hello)\s+there\b/gi,
  /\bhow(?:'s|\s+is)\s+it\s+going\b/gi,
  /\b(?:is|will|does)\s+it\s+(?:going\s+to\s+)?(?:be\s+)?(?:rain|snow|sunny|cold|hot|warm|windy|cloudy|hail|freez)\w*/gi,
  /\bit(?:'s|\s+is|\s+was|\s+will\s+be)\s+(?:going\s+to\s+)?(?:rain|snow|sunny|cold|hot|warm|windy|cloudy|late|early|freez)\w*/gi,
  /\b(?:this|that|these|those|next)\s+(?:morning|afternoon|evening|night|week|weekend|month|year|season|summer|winter|spring|autumn|fall|time|day)s?\b/gi,
  /\b(?:is|are|was|were)\s+there\b|\bthere\s+(?:is|are|was|were)\b|\bthere's\b/gi,
];

function hebrewWords(text: string): string[] {
  return text.match(/[\u05D0-\u05EA"']+/g) ?? [];
}

/** Reads as a continuation of the previous question ("ומה לגבי", "ולחו"ל", "and", "what about", "…too?"). */
export function readsAsContinuation(question: string): boolean {
  const text = normalizeText(question.trim());
  if (CONTINUATION.test(text) || CONTINUATION_END.test(text)) return true;
  const first = hebrewWords(text.split(/\s+/)[0] ?? '')[0];
  return first !== undefined && opensWithVav(first);
}

/**
 * The question without the words that only say it continues ("ומה לגבי רכב?" → "רכב?", "ולחו"ל?"
 * → "לחו"ל?", "and for the car too?" → "for the car?"): what it adds to the previous question.
 * They carry no content, and "לגבי", "בנוגע" are not stop words: searched, they would count as
 * words the documents lack.
 */
export function withoutContinuation(question: string): string {
  const words = question.trim().split(/\s+/).filter(Boolean);
  const opener = words
    .map((w) => normalizeText(w))
    .join(' ')
    .match(CONTINUATION);
  let rest = opener ? words.slice(opener[0].trim().split(/\s+/).length) : words;
  if (!opener && rest.length > 0) {
    const first = hebrewWords(normalizeText(rest[0]))[0];
    if (first !== undefined && opensWithVav(first)) rest = [rest[0].replace('ו', ''), ...rest.slice(1)];
  }
  return rest
    .join(' ')
    .replace(/\s+(?:too|as\s+well)(?=\s*[?.!]*$)/i, '')
    .trim();
}

/** "מה זה ביטקוין?", "כמה זה 17 כפול 23?": the pronoun is a copula (what is X), so it points at nothing said before. */
function isCopula(words: readonly string[], at: number): boolean {
  const before = words[at - 1];
  const after = words[at + 1];
  return (before === 'מה' || before === 'מי' || before === 'כמה') && after !== undefined && !REFERENCE_VERBS.has(after) && !HEBREW_REFERENCE.has(after);
}

/**
 * "my computer is slow, how do I clean it up?", "המחשב שלי איטי, איך מנקים אותו?": a first clause
 * that names something gives the later clauses' pronouns their antecedent, so only the first
 * clause can point back at the conversation ("is it covered, and up to how much?").
 */
function firstClauseIfItNamesSomething(text: string): string {
  const [first, ...rest] = text.split(/[,;]/);
  return rest.length > 0 && tokenize(first, { forQuery: true }).length > 0 ? first : text;
}

/** Refers back with a pronoun or demonstrative (זה, היא, it, that…) that points at the conversation. */
export function refersBack(question: string): boolean {
  let text = firstClauseIfItNamesSomething(normalizeText(question.trim()));
  for (const pattern of ENGLISH_NON_REFERENCE) text = text.replace(pattern, ' ');
  if (ENGLISH_REFERENCE.test(text)) return true;
  for (const pattern of HEBREW_NON_REFERENCE) text = text.replace(pattern, ' ');
  const words = text.split(/[\s?,.!;:()]+/).filter(Boolean);
  // "ומה זה", "כמה זה עולה", "בזה": the pronoun may carry a conjunction or preposition prefix.
  return words.some((w, i) => (HEBREW_REFERENCE.has(w) || (/^[ובלשכמ]/.test(w) && PREFIXED_REFERENCE.has(w.slice(1)))) && !isCopula(words, i));
}

/** A question that is only a question word ("למה?", "why?", "how much?"): it asks about what came before. */
export function isBareQuestionWord(question: string): boolean {
  return /^(?:ו?(?:למה|מדוע|איך|כמה|מתי|איפה|מה|האם|כיצד)|why|how(?:\s+(?:much|long|come|so))?|when|where|what|which)\s*\?*$/iu.test(normalizeText(question.trim()));
}
