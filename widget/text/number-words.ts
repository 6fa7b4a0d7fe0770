/**
 * Numbers written in words, read whole: "שמונה עשרה" is eighteen, "עשרים וחמישה" twenty-five,
 * "שלושת אלפים" three thousand, "forty-five" forty-five. Hebrew has masculine, feminine and
 * construct forms of each unit (שלוש, שלושה, שלושת) and compounds of several words, joined by
 * space or by ו ("ועשרים"); a word may carry a proclitic (לשלושה, בעשרים, ולשמונה).
 *
 * Written here rather than taken from a library: the packages that read Hebrew number words
 * (e.g. for speech) read ordinals and dates too and are larger than the table below, and the
 * fact patterns (fact-patterns.ts) need the same table as a regular expression, so that a fact
 * is cut at the whole number ("שמונה עשרה שנים", never "עשרה שנים").
 *
 * What is not a number word here: "שנים" alone (years; only "שנים עשר" is twelve), the ordinals
 * (השני, second) and a word with the definite article, which is one of them.
 */

/** How a word combines with the words around it. */
type Role = 'unit' | 'ten' | 'teen-ten' | 'tens' | 'hundred' | 'hundreds' | 'thousand' | 'thousands' | 'million' | 'teen';

interface WordValue {
  value: number;
  role: Role;
}

const HE_UNITS: Record<string, number> = {
  אחד: 1,
  אחת: 1,
  שניים: 2,
  שתיים: 2,
  שתים: 2,
  שני: 2,
  שתי: 2,
  שלוש: 3,
  שלש: 3,
  שלושה: 3,
  שלשה: 3,
  שלושת: 3,
  שלשת: 3,
  ארבע: 4,
  ארבעה: 4,
  ארבעת: 4,
  חמש: 5,
  חמישה: 5,
  חמשה: 5,
  חמשת: 5,
  שש: 6,
  שישה: 6,
  ששה: 6,
  ששת: 6,
  שבע: 7,
  שבעה: 7,
  שבעת: 7,
  שמונה: 8,
  שמונת: 8,
  תשע: 9,
  תשעה: 9,
  תשעת: 9,
};
const HE_TENS: Record<string, number> = {
  עשרים: 20,
  שלושים: 30,
  שלשים: 30,
  ארבעים: 40,
  חמישים: 50,
  שישים: 60,
  ששים: 60,
  שבעים: 70,
  שמונים: 80,
  תשעים: 90,
};
/** Twice, two days, two weeks…: the dual is the number two with its unit. */
const HE_DUALS = ['פעמיים', 'יומיים', 'שבועיים', 'חודשיים', 'שנתיים', 'שעתיים'];

const EN_UNITS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
const EN_TEENS = ['ten', 'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const EN_TENS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

const WORDS: ReadonlyMap<string, WordValue> = new Map<string, WordValue>([
  ...Object.entries(HE_UNITS).map(([w, value]): [string, WordValue] => [w, { value, role: 'unit' }]),
  ...['עשר', 'עשרה'].map((w): [string, WordValue] => [w, { value: 10, role: 'teen-ten' }]),
  ['עשרת', { value: 10, role: 'ten' }],
  ...Object.entries(HE_TENS).map(([w, value]): [string, WordValue] => [w, { value, role: 'tens' }]),
  ['מאה', { value: 100, role: 'hundred' }],
  ['מאתיים', { value: 200, role: 'hundred' }],
  ['מאות', { value: 100, role: 'hundreds' }],
  ['אלף', { value: 1000, role: 'thousand' }],
  ['אלפיים', { value: 2000, role: 'thousand' }],
  ['אלפים', { value: 1000, role: 'thousands' }],
  ['אלפי', { value: 1000, role: 'thousands' }],
  ['מיליון', { value: 1e6, role: 'million' }],
  ['מליון', { value: 1e6, role: 'million' }],
  ['מיליוני', { value: 1e6, role: 'million' }],
  ['מיליארד', { value: 1e9, role: 'million' }],
  ...HE_DUALS.map((w): [string, WordValue] => [w, { value: 2, role: 'unit' }]),
  ...EN_UNITS.map((w, i): [string, WordValue] => [w, { value: i + 1, role: 'unit' }]),
  ...EN_TEENS.map((w, i): [string, WordValue] => [w, { value: 10 + i, role: 'teen' }]),
  ...EN_TENS.map((w, i): [string, WordValue] => [w, { value: 20 + 10 * i, role: 'tens' }]),
  ['hundred', { value: 100, role: 'hundreds' }],
  ['thousand', { value: 1000, role: 'thousands' }],
  ['million', { value: 1e6, role: 'million' }],
]);

/** "שנים" is twelve only before עשר/עשרה; alone it is "years". */
const TWELVE_FIRST = new Set(['שנים', 'שניים']);

const PROCLITICS = 'ולבמשכ';

/** A number word's value and role, with a proclitic allowed, or ו and one (never ה: "השני" is "the second"). */
function wordValue(word: string): WordValue | null {
  const lower = word.toLowerCase();
  const direct = WORDS.get(lower);
  if (direct) return direct;
  if (lower.length < 3 || !PROCLITICS.includes(lower[0])) return null;
  const one = WORDS.get(lower.slice(1));
  if (one) return one;
  return lower[0] === 'ו' && lower.length > 3 && PROCLITICS.includes(lower[1]) ? (WORDS.get(lower.slice(2)) ?? null) : null;
}

/** A number read from words: its value and where it stands in the text. */
export interface NumberWords {
  value: number;
  start: number;
  end: number;
}

/** Builds one number from consecutive words; `add` returns false when a word starts another number. */
class NumberBuilder {
  total = 0;
  current = 0;
  last: Role | null = null;

  add(w: WordValue): boolean {
    const { value, role } = w;
    switch (role) {
      case 'unit':
        if (this.current % 10 !== 0 || this.last === 'teen-ten' || this.last === 'teen') return false;
        this.current += value;
        break;
      case 'teen-ten':
        // "שמונה עשרה": a unit then ten is a teen; ten alone is ten.
        if (this.last === 'unit' && this.current % 100 < 10) this.current += 10;
        else if (this.current % 100 === 0) this.current += 10;
        else return false;
        break;
      case 'ten':
      case 'teen':
      case 'tens':
        if (this.current % 100 !== 0) return false;
        this.current += value;
        break;
      case 'hundred':
        if (this.current !== 0) return false;
        this.current = value;
        break;
      case 'hundreds':
        // "שלוש מאות", "three hundred": the unit before is multiplied.
        if (this.last !== 'unit' && this.last !== 'teen' && this.last !== 'tens') return false;
        this.current = Math.floor(this.current / 100) * 100 + (this.current % 100) * 100;
        break;
      case 'thousand':
        if (this.total % 1e6 !== 0 || (value === 2000 && this.current !== 0)) return false;
        this.total += value === 2000 ? 2000 : (this.current || 1) * 1000;
        this.current = 0;
        break;
      case 'thousands':
        if (this.current === 0 || this.total % 1e6 !== 0) return false;
        this.total += this.current * 1000;
        this.current = 0;
        break;
      case 'million':
        if (this.total !== 0 && this.current === 0) return false;
        this.total = (this.total + (this.current || 1)) * value;
        this.current = 0;
        break;
    }
    this.last = role;
    return true;
  }

  get value(): number {
    return this.total + this.current;
  }

  get empty(): boolean {
    return this.last === null;
  }
}

const WORD = /[\u05D0-\u05EAA-Za-z]+(?:["״'׳][\u05D0-\u05EA]+)?/gu;

/**
 * Every number the text writes in words, compounds read whole: "לתקופה של שמונה עשרה שנים" →
 * 18. Words join when only spaces, a hyphen or "and" stand between them.
 */
export function readNumberWords(text: string): NumberWords[] {
  const found: NumberWords[] = [];
  let builder = new NumberBuilder();
  let start = -1;
  let end = -1;
  const flush = () => {
    if (!builder.empty) found.push({ value: builder.value, start, end });
    builder = new NumberBuilder();
    start = -1;
  };
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    const at = match.index ?? 0;
    const between = start >= 0 ? text.slice(end, at) : '';
    const joined = start >= 0 && /^[\s-]*$/.test(between);
    if (start >= 0 && word.toLowerCase() === 'and' && /^\s+$/.test(between)) continue;
    if (!joined && start >= 0 && !/^\s+and\s+$/i.test(between)) flush();
    let w = wordValue(word);
    if (!w && TWELVE_FIRST.has(word)) {
      const next = text.slice(at + word.length).match(/^\s+(עשר|עשרה)(?![\u05D0-\u05EA])/u);
      if (next) w = { value: 2, role: 'unit' };
    }
    if (!w) {
      flush();
      continue;
    }
    if (!builder.add(w)) {
      flush();
      builder.add(w);
    }
    if (start < 0) start = at;
    end = at + word.length;
  }
  flush();
  return found;
}

/** The words, longest first so an alternation takes the whole word. */
const HE_WORD_LIST = [...WORDS.keys()].filter((w) => /^[\u05D0-\u05EA]/u.test(w) && !HE_DUALS.includes(w)).sort((a, b) => b.length - a.length);

/**
 * A Hebrew number in words as a regular-expression source, compounds whole: "שמונה עשרה",
 * "עשרים וחמישה", "שנים עשר", "שלושת אלפים". The first word carries no proclitic here (the
 * patterns put their own before it); later words may open with ו.
 */
export const HE_NUMBER_PHRASE = (() => {
  const word = `(?:${HE_WORD_LIST.join('|')})`;
  const twelve = '(?:שנים|שניים)\\s+(?:עשר|עשרה)';
  const first = `(?:${twelve}|${word})`;
  return `${first}(?:\\s+ו?${first})*(?![\\u05D0-\\u05EA])`;
})();
