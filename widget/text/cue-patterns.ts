/**
 * Building blocks for the cue patterns of question-type.ts and verdict.ts: whole-word phrases
 * over text normalised as the tokenizer normalises it (final letters folded, gershayim unified,
 * lower case). JavaScript's \b knows nothing of Hebrew letters, and a Hebrew word may carry
 * proclitics (ו/ה/ב/ל/מ/ש/כ: "והאם", "שמכסה", "בהשתתפות"), so boundaries are lookarounds on
 * letters and a phrase may open with any legal prefix stack of the tokenizer.
 */
import { HEBREW_PREFIXES, normalizeText } from '../core/tokenizer/index.ts';

const LETTER = '\\u05D0-\\u05EAa-z0-9';
/** Not preceded by a letter or digit. */
export const START = `(?<![${LETTER}])`;
/** Not followed by a letter or digit. */
export const END = `(?![${LETTER}])`;
/** Any legal proclitic stack, longest first, or none. */
const PREFIX = `(?:${[...HEBREW_PREFIXES].sort((a, b) => b.length - a.length).join('|')})?`;

/** The text cue patterns are matched against: the tokenizer's normalisation, lower case. */
export function cueText(text: string): string {
  return normalizeText(text).toLowerCase();
}

/**
 * Which proclitics a phrase's first word may carry: any legal stack (content words: "שמכסה",
 * "בהשתתפות"), only the conjunction ו ("ומה", "וכמה": question words, which other prefixes turn
 * into other words — כ+מה is "כמה", ל+מה is "למה"), or none (English).
 */
export type PrefixRule = 'any' | 'vav' | 'none';

/**
 * A whole-word phrase as a regex source. `source` is written as Hebrew is typed (final letters,
 * regex syntax allowed; a space stands for any white space; English in lower case, since upper
 * case escapes such as \S must survive) and normalised here like the text.
 */
export function phrase(source: string, prefix: PrefixRule = 'any'): string {
  const body = normalizeText(source).replace(/ +/g, '\\s+');
  const lead = prefix === 'any' ? PREFIX : prefix === 'vav' ? 'ו?' : '';
  return `${START}${lead}(?:${body})${END}`;
}

/** One global, Unicode regex of several phrases (alternatives). */
export function phrases(sources: readonly string[], prefix: PrefixRule = 'any'): RegExp {
  return new RegExp(sources.map((s) => phrase(s, prefix)).join('|'), 'gu');
}

/** The set of `words` as normalised, lower-case words. */
export function wordSet(words: string): ReadonlySet<string> {
  return new Set(cueText(words).split(/\s+/).filter(Boolean));
}
