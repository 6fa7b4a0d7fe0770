/**
 * The BM25 tokenizer: normalised text → index terms. Hebrew words yield their surface form plus
 * prefix-stripped candidates (see hebrew-prefixes.ts); English words are stemmed; numbers stay
 * whole so clause numbers, dates and sums can be looked up exactly.
 */
import { normalizeText } from './normalize.ts';
import { prefixStrippings } from './hebrew-prefixes.ts';
import { isHebrewStopword } from './stopwords.ts';
import { englishTerm } from './english.ts';

/** Bump whenever the terms produced for some input change: indexes store it and must match. */
export const TOKENIZER_VERSION = 'he-en-1';

export interface TokenizeOptions {
  /**
   * Query mode: terms are de-duplicated (a repeated query word should not count twice). Matching
   * needs no other difference: documents and queries both get the prefix-stripped candidates.
   */
  forQuery?: boolean;
}

/** How one word was turned into terms: exposed for statistics and tests. */
export interface WordTerms {
  kind: 'he' | 'latin' | 'number';
  terms: string[];
  /** Hebrew only: how many prefix-stripped candidates were added. */
  stripped: number;
}

// A Hebrew word may hold gershayim/geresh between letters (ש"ח, צ'ק) and end with a geresh (ג').
// Latin words are letters of any non-Hebrew script, digits allowed after the first letter.
// Numbers keep their inner separators: 1,200,000 3.2.4 15.1.2025 15/1/2025 10:30 25%.
const WORD_RE = /([\u05D0-\u05EA]+(?:["'][\u05D0-\u05EA]+)*'?)|((?:(?![\u05D0-\u05EA])\p{L})(?:(?![\u05D0-\u05EA])[\p{L}\p{M}\p{N}])*(?:'(?:(?![\u05D0-\u05EA])\p{L})+)*)|(\d+(?:[.,/:]\d+)*%?)/gu;

const THOUSANDS = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

function numberTerms(raw: string): string[] {
  const bare = raw.replace(/%$/, '');
  // 1,200,000 and 1200000 must meet; a comma that is not a thousands separator separates numbers.
  const parts = THOUSANDS.test(bare) ? [bare.replace(/,/g, '')] : bare.split(',');
  return parts.filter(Boolean).map((p) => p.replace(/\//g, '.'));
}

function hebrewTerms(raw: string): { terms: string[]; stripped: number } {
  const hadGeresh = raw.endsWith("'");
  const quote = raw.indexOf('"');
  const word = raw.replace(/["']/g, '');
  // A lone letter is a detached proclitic (ב-2025) unless a geresh makes it a name or a number (צד ג').
  if (word.length < 2 && !hadGeresh) return { terms: [], stripped: 0 };
  if (isHebrewStopword(word)) return { terms: [], stripped: 0 };
  const terms = [word];
  for (const rest of prefixStrippings(word, quote)) {
    if (!isHebrewStopword(rest)) terms.push(rest);
  }
  return { terms, stripped: terms.length - 1 };
}

/** Every word of `text` with the terms it produced, in order (normalises the text itself). */
export function analyze(text: string): WordTerms[] {
  const out: WordTerms[] = [];
  for (const m of normalizeText(text).matchAll(WORD_RE)) {
    if (m[1] !== undefined) {
      const { terms, stripped } = hebrewTerms(m[1]);
      out.push({ kind: 'he', terms, stripped });
    } else if (m[2] !== undefined) {
      const term = englishTerm(m[2]);
      out.push({ kind: 'latin', terms: term === null ? [] : [term], stripped: 0 });
    } else {
      out.push({ kind: 'number', terms: numberTerms(m[3]), stripped: 0 });
    }
  }
  return out;
}

/** BM25 terms of `text`. Documents keep repeats (term frequency); queries are de-duplicated. */
export function tokenize(text: string, options: TokenizeOptions = {}): string[] {
  const terms: string[] = [];
  for (const word of analyze(text)) terms.push(...word.terms);
  return options.forQuery ? [...new Set(terms)] : terms;
}
