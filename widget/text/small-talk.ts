/**
 * Conversation that is not a request for information: a greeting or thanks with nothing else in
 * it, a question about the assistant itself ("are you a bot?", "מה השם שלך?"), a joke request, or
 * bare arithmetic. Such a question shares words with any large corpus ("היום", "אדם", "12"), so the
 * search's evidence cannot tell it from a real question; its form can. It always gets the
 * off-topic reply (unless it names insurance), before any evidence is weighed.
 *
 * Hand-written patterns rather than a fitted model: the forms are few and closed, and a pattern
 * that matches them exactly never fires on a question that merely starts with "שלום, …" and goes on
 * to ask something (the greeting is stripped and the rest must be empty or small talk itself).
 */

/** Greetings, thanks and pleasantries, as whole phrases (normalised: no niqqud, lower case). */
const PLEASANTRIES = [
  // Hebrew
  'שלום',
  'היי',
  'הי',
  'הלו',
  'אהלן',
  'מה נשמע',
  'מה שלומך',
  'מה שלומכם',
  'מה קורה',
  'מה המצב',
  'מה העניינים',
  'איך אתה',
  'איך את',
  'איך הולך',
  'איך עובר עליך היום',
  'איך עובר עליך',
  'איך היה לך היום',
  'איך היום שלך',
  'בוקר טוב',
  'צהריים טובים',
  'ערב טוב',
  'לילה טוב',
  'שבוע טוב',
  'שבת שלום',
  'חג שמח',
  'תודה',
  'תודה רבה',
  'תודה לך',
  'סבבה',
  'אחלה',
  'מעולה',
  'נעים מאוד',
  'להתראות',
  'ביי',
  'יום טוב',
  // English
  'hi',
  'hello',
  'hey',
  'hey there',
  'hiya',
  'yo',
  'howdy',
  'greetings',
  'good morning',
  'good afternoon',
  'good evening',
  'good night',
  'how are you',
  'how are you doing',
  'how are you today',
  "how's it going",
  'how is it going',
  "how's your day",
  "how's your day going",
  'how is your day',
  "what's up",
  'whats up',
  'sup',
  'thanks',
  'thank you',
  'thank you very much',
  'thanks a lot',
  'cheers',
  'bye',
  'goodbye',
  'see you',
  'nice to meet you',
  'have a nice day',
];

/** Questions about the assistant itself, or asking it to entertain. */
const ABOUT_THE_ASSISTANT = [
  /^(?:האם )?(?:אתה|את) (?:בוט|רובוט|מכונה|אדם|בן אדם|בת אדם|אמיתי|אמיתית|אנושי|אנושית|בינה מלאכותית)/,
  // End-anchored: "who are you insured with?" asks about the customer's insurer.
  /^(?:מי|מה) (?:אתה|את)(?: בעצם| בדיוק)?$/,
  /^(?:איך קוראים לך|מה השם שלך|יש לך שם|בן כמה אתה|בת כמה את|מאיפה אתה|איפה אתה גר|מה אתה אוהב|אתה משתעמם|את משתעממת)/,
  /^(?:ספר|ספרי|תספר|תספרי) (?:לי )?(?:בדיחה|סיפור)/,
  /^(?:are you|r u) (?:a |an )?(?:bot|robot|machine|human|person|real|ai|chatbot|real person|human being)\b/,
  /^(?:who|what) are you(?: exactly| really)?$/,
  /^(?:what(?:'s| is) your name|do you have a name|how old are you|where are you from|where do you live|do you (?:ever )?get bored|do you like)/,
  /^(?:tell me a (?:joke|story)|make me laugh)/,
];

/** Longest first, so that stripping "good morning" does not leave "morning". */
const PLEASANTRIES_LONGEST_FIRST = [...PLEASANTRIES].sort((a, b) => b.length - a.length);

/** What may open a sum ("how much is", "כמה זה"), and the operators between its operands. */
const ASK = "(?:what's|what is|how much is|calculate|compute|solve|כמה זה|כמה יוצא|תחשב|חשב|תפתור)";
// Each operand takes its whole run of digits or letters, and an operator spelt in letters ends
// where its letters do ("x", "over"): otherwise "xxxx…" or "covercover…" splits into operands and
// operators in exponentially many ways, and a text that then fails to match at its end ("x" × 40
// and a soft hyphen) took the regex engine minutes (found by the question fuzzer: docs/reliability.md).
const LETTER = '[a-z\\u05d0-\\u05ea]';
const OPERATOR = `(?:[-+*/×÷^=]|(?:x|plus|minus|times|divided by|multiplied by|over|to the power of|כפול|ועוד|פלוס|פחות|מינוס|חלקי|חלקו|בחזקת)(?!${LETTER}))`;
const OPERAND = `(?:-?[\\d.,]+(?![\\d.,])|${LETTER}+(?!${LETTER}))`;
/** Numbers and operators, and nothing else once the opening words are taken off. */
const ARITHMETIC = new RegExp(`^(?:${ASK}\\s+)?${OPERAND}(?:\\s*${OPERATOR}\\s*${OPERAND})+$`);
const OPERATOR_SPLIT = new RegExp(`\\s*${OPERATOR}\\s*`);
const LEADING_ASK = new RegExp(`^${ASK}\\s+`);
/** Number words an arithmetic question may spell out. */
const NUMBER_WORDS = new Set(
  'zero one two three four five six seven eight nine ten eleven twelve twenty hundred thousand אפס אחת אחד שתיים שניים שתים שלוש שלושה ארבע ארבעה חמש חמישה שש שישה שבע שבעה שמונה תשע תשעה עשר עשרה מאה אלף'.split(
    ' ',
  ),
);

function clean(question: string): string {
  // Not the tokenizer's normalizeText: it folds final letters, and these phrases are written plainly.
  return question
    .normalize('NFKC')
    .replace(/[\u0591-\u05c7]/g, '')
    .toLowerCase()
    .replace(/[’`]/g, "'")
    .replace(/[?!.,;:"״׳()\u200f\u200e…]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `text` made only of pleasantries (in any order), or empty. */
function onlyPleasantries(text: string): boolean {
  let rest = ` ${text} `;
  for (const phrase of PLEASANTRIES_LONGEST_FIRST) {
    // Twice: after one split, a phrase repeated back to back ("hi hi") shares the space between.
    rest = rest.split(` ${phrase} `).join(' ');
    rest = rest.split(` ${phrase} `).join(' ');
  }
  return rest.trim() === '';
}

function isArithmetic(text: string): boolean {
  if (!ARITHMETIC.test(text)) return false;
  // Words between the operators must be numbers: "כמה זה רכב ועוד דירה" is not arithmetic.
  return text.split(OPERATOR_SPLIT).every((o, i) => {
    const last = o.replace(LEADING_ASK, '').trim();
    return i === 0 && last === '' ? false : /^-?[\d.,]+$/.test(last) || NUMBER_WORDS.has(last);
  });
}

export type SmallTalkKind = 'greeting' | 'thanks' | 'about-assistant' | 'arithmetic';

const THANKS = /(?:^| )(?:תודה|thanks|thank you|cheers)(?: |$)/;

/** What kind of small talk `question` is, or null for a question that asks for information. */
export function smallTalkKind(question: string): SmallTalkKind | null {
  const text = clean(question);
  if (text === '') return null;
  if (onlyPleasantries(text)) return THANKS.test(text) ? 'thanks' : 'greeting';
  // A greeting may open a question about the assistant: "היי, אתה בוט?".
  let rest = text;
  for (const phrase of PLEASANTRIES_LONGEST_FIRST) {
    if (rest.startsWith(`${phrase} `)) rest = rest.slice(phrase.length + 1);
  }
  if (ABOUT_THE_ASSISTANT.some((p) => p.test(rest))) return 'about-assistant';
  if (isArithmetic(rest)) return 'arithmetic';
  return null;
}
