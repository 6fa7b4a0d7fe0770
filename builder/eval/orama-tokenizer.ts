/**
 * Our tokenizer behind Orama's `Tokenizer` interface (Orama 3.1.18). Orama's built-in tokenizer
 * splits on a Latin-only pattern and returns nothing for Hebrew, so Hebrew search needs this. Only
 * the reference index (orama-bm25.ts) and `eval --baseline` run Orama; the widget never does.
 *
 * How Orama calls it (3.1.18, components/index.js): documents are tokenised with the property name
 * (`tokenize(value, language, prop, false)` on insert, `(value, language, prop)` on remove) and
 * search terms without it (`tokenize(term, language)`); string `where` filters pass the property.
 * A missing `prop` therefore marks a query, and we switch to query mode on that.
 *
 * Search options that interact with these terms:
 * - `exact: true` must not be used: Orama then also filters hits by a case-sensitive `\b` regex of
 *   the raw query words against the raw stored text, which fails for Hebrew (no `\b` around
 *   Hebrew letters without the `u` flag) and defeats normalisation (ביטוח vs בביטוח).
 * - `exact: false` (the default) makes every query term match indexed terms it is a prefix of
 *   (רכב also hits רכבת). `wholeTerms: true` appends a terminator to each term so that only whole
 *   terms match, which is ordinary BM25.
 * - `threshold` defaults to 1 (any term may match, ranked by BM25). `threshold: 0` demands every
 *   query term in one property; with prefix-stripped candidates among the terms, that is stricter
 *   than intended, so keep the default.
 * - `tolerance` (Levenshtein) works on our terms; with 3-letter Hebrew stems it matches widely.
 * Documents keep repeated terms, so Orama's term frequency is real; note that Orama then counts
 * every occurrence in its document-frequency table too (its IDF becomes collection-frequency based).
 */
import type { Tokenizer } from '@orama/orama';
import { tokenize } from '../../widget/core/tokenizer/tokenize.ts';

/** The `language` our tokenizer reports to Orama. */
export const ORAMA_TOKENIZER_LANGUAGE = 'harel-he-en';

/** Appended to every term under `wholeTerms`: no real text term contains it. */
const TERM_END = '\u0003';

export interface OramaTokenizerOptions {
  /** Only whole terms match under Orama's default (non-exact) search. Default false. */
  wholeTerms?: boolean;
}

export function createOramaTokenizer(options: OramaTokenizerOptions = {}): Tokenizer {
  const whole = options.wholeTerms === true;
  return {
    language: ORAMA_TOKENIZER_LANGUAGE,
    // Orama's interface requires it; our tokenize is cheap and pure, so nothing is cached here.
    normalizationCache: new Map<string, string>(),
    tokenize(raw: string, _language?: string, prop?: string): string[] {
      if (typeof raw !== 'string') return [raw];
      const terms = tokenize(raw, { forQuery: prop === undefined });
      return whole ? terms.map((t) => t + TERM_END) : terms;
    },
  };
}
