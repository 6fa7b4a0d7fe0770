/**
 * Term arithmetic the loop's heuristics share (grading, grounding, extractive selection): a text's
 * content words as term candidates, and how much of one text another covers. Everything goes
 * through the BM25 tokenizer so that "ברכב" meets "הרכב" here exactly as it does in search.
 */
import { analyze, tokenize } from '../core/tokenizer/index.ts';

/** One content word of a text: its terms (surface form first, then prefix-stripped candidates). */
export type Word = readonly string[];

/** Content words of `text`, stop words dropped, each distinct word once (keyed by surface term). */
export function contentWords(text: string): Word[] {
  const seen = new Set<string>();
  const out: Word[] = [];
  for (const w of analyze(text)) {
    if (w.terms.length === 0 || seen.has(w.terms[0])) continue;
    seen.add(w.terms[0]);
    out.push(w.terms);
  }
  return out;
}

/** Every term the tokenizer produces for `text`, as a set to test words against. */
export function termSet(text: string): Set<string> {
  return new Set(tokenize(text));
}

/** A word is found when any of its candidates is among the text's terms (ביטוח ~ בביטוח ~ הביטוח). */
export function wordFound(word: Word, terms: ReadonlySet<string>): boolean {
  return word.some((t) => terms.has(t));
}

/**
 * Smoothed inverse document frequency of each word over a small set of texts (the retrieved
 * passages or their sentences): a word few of them contain says more about which one answers.
 * A word none of them contains weighs as one found once, not more: customers' questions carry
 * conversational words no policy uses ("מבולבל", "honestly"), and letting those dominate made
 * coverage a measure of chattiness (on dev-v2 this cap raised the question-level separation of
 * answerable from unanswerable questions from AUC 0.747 to 0.760).
 */
export function localIdf(words: readonly Word[], texts: readonly ReadonlySet<string>[]): number[] {
  const n = texts.length;
  return words.map((w) => {
    const df = texts.reduce((sum, t) => sum + (wordFound(w, t) ? 1 : 0), 0);
    return Math.log(1 + (n + 1) / (Math.max(df, 1) + 0.5));
  });
}

/** Weighted share of `words` found in `terms`, in [0, 1] (0 for no words). */
export function coverage(words: readonly Word[], terms: ReadonlySet<string>, weights?: readonly number[]): number {
  let found = 0;
  let total = 0;
  words.forEach((w, i) => {
    const weight = weights?.[i] ?? 1;
    total += weight;
    if (wordFound(w, terms)) found += weight;
  });
  return total > 0 ? found / total : 0;
}
