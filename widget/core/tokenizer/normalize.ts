/**
 * Text normalisation shared by indexing and querying. Everything that must make two spellings of
 * the same word meet happens here, before any splitting, so the tokenizer only sees canonical text.
 */

// Points, accents and cantillation (U+0591–U+05C7) are marks, except the four punctuation signs in
// that range: maqaf U+05BE, paseq U+05C0, sof pasuq U+05C3, nun hafukha U+05C6.
const HEBREW_MARKS = /[\u0591-\u05BD\u05BF\u05C1\u05C2\u05C4\u05C5\u05C7]/g;

const FINAL_LETTERS: Record<string, string> = { ך: 'כ', ם: 'מ', ן: 'נ', ף: 'פ', ץ: 'צ' };
const FINAL_RE = /[ךםןףץ]/g;

// Yiddish digraphs survive NFKC; spell them out so they meet their two-letter forms.
const DIGRAPHS: Record<string, string> = { װ: 'וו', ױ: 'וי', ײ: 'יי' };
const DIGRAPH_RE = /[װױײ]/g;

// Bidi controls, zero-width characters and soft hyphens that PDF extraction leaves inside words:
// kept, they would split a word in two.
const INVISIBLE = /[\u00AD\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

// Singles are unified first: NFKC turns the double prime into two primes, and people type
// gershayim as two apostrophes, so `''` must become `"` after that step (keeps this idempotent).
const DOUBLE_QUOTES = /[\u05F4\u201C\u201D\u201E\u201F\u2033]|''/g;
const SINGLE_QUOTES = /[\u05F3\u2018\u2019\u201A\u201B\u2032\u0060\u00B4]/g;

const DASHES = /[\u05BE\u2010-\u2015\u2212]/g;

/**
 * NFKC; Hebrew marks removed; final letters folded into their medial forms; geresh and gershayim
 * (Hebrew or typographic) unified to ASCII `'` and `"`; maqaf and dashes to `-`. Idempotent.
 */
export function normalizeText(text: string): string {
  return text
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .replace(HEBREW_MARKS, '')
    .replace(FINAL_RE, (c) => FINAL_LETTERS[c])
    .replace(DIGRAPH_RE, (c) => DIGRAPHS[c])
    .replace(SINGLE_QUOTES, "'")
    .replace(DOUBLE_QUOTES, '"')
    .replace(DASHES, '-');
}

const HEBREW_LETTER = /[\u05D0-\u05EA]/g;
const LATIN_LETTER = /[A-Za-z\u00C0-\u024F]/g;

/** 'he' when Hebrew letters are at least as many as Latin ones (the corpus is mostly Hebrew). */
export function detectLang(text: string): 'he' | 'en' {
  const hebrew = text.match(HEBREW_LETTER)?.length ?? 0;
  const latin = text.match(LATIN_LETTER)?.length ?? 0;
  return latin > hebrew ? 'en' : 'he';
}
