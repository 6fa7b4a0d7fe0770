/**
 * Hebrew proclitics: the one-letter words ו ה ב כ ל מ ש (and כש, לכש) written fused to the next
 * word. Without a morphological lexicon we cannot know whether `מבנה` is מ+בנה or a word of its
 * own, so the tokenizer emits the surface form AND each legal stripping; BM25 then matches
 * `בביטוח`, `והביטוח` and `ביטוח` through the shared `ביטוח` term.
 *
 * Precision guards (why the candidates stay few):
 * - only stacks Hebrew grammar allows: [ו] [ש|כש|לכש] [ב|כ|ל|מ] [ה] — ו only first, at most one
 *   of ב/כ/ל/מ, ה only last and never right after ב/כ/ל (they absorb the article: בבית, not בהבית);
 * - the remainder keeps at least MIN_STEM letters, so short words (מים, של, מה) are never cut;
 * - acronyms (a gershayim inside: ת"א, מע"מ) may only lose letters written before the quote, and
 *   keep at least two letters (בת"א → תא).
 * Spurious strippings (ביטוח → יטוח) are nearly harmless: both sides of the match produce them
 * from the same surface words, so they mostly duplicate the surface word's postings.
 */

import { normalizeText } from './normalize.ts';

export const MIN_STEM = 3;

/**
 * Frequent corpus words whose first letter is a root letter and whose stripping is another common
 * word (מקרה is not מ+קרה "happened", מספר not מ+ספר "book"): stripping stops at them.
 */
const ROOT_INITIAL = new Set(['מקרה', 'מבנה', 'מספר', 'מועד', 'מעבר', 'שמאי', 'משפחה', 'מחלקה', 'מכונה', 'מלון', 'מסלול', 'מבטח'].map(normalizeText));
const MIN_ACRONYM_STEM = 2;

function buildPrefixes(): Set<string> {
  const out = new Set<string>();
  for (const vav of ['', 'ו']) {
    for (const rel of ['', 'ש', 'כש', 'לכש']) {
      for (const prep of ['', 'ב', 'כ', 'ל', 'מ']) {
        for (const article of ['', 'ה']) {
          if (article && (prep === 'ב' || prep === 'כ' || prep === 'ל')) continue;
          const prefix = vav + rel + prep + article;
          if (prefix) out.add(prefix);
        }
      }
    }
  }
  return out;
}

/** Every legal proclitic stack (55 of them). */
export const HEBREW_PREFIXES: ReadonlySet<string> = buildPrefixes();
const MAX_PREFIX = Math.max(...[...HEBREW_PREFIXES].map((p) => p.length));

/**
 * Remainders of `word` after each legal prefix stack, shortest prefix first. `word` is normalised
 * Hebrew letters only (finals folded, quotes removed). `acronymAt` is the number of letters that
 * stood before a gershayim, or -1 when the word had none.
 */
export function prefixStrippings(word: string, acronymAt = -1): string[] {
  const out: string[] = [];
  const maxPrefix = acronymAt >= 0 ? Math.min(MAX_PREFIX, acronymAt - 1) : MAX_PREFIX;
  const minStem = acronymAt >= 0 ? MIN_ACRONYM_STEM : MIN_STEM;
  if (ROOT_INITIAL.has(word)) return out;
  for (let n = 1; n <= maxPrefix && word.length - n >= minStem; n++) {
    if (!HEBREW_PREFIXES.has(word.slice(0, n))) continue;
    const rest = word.slice(n);
    out.push(rest);
    if (ROOT_INITIAL.has(rest)) break;
  }
  return out;
}

/** Prefixes that change nothing a stop word means: `ואני`, `שיש`, `כשהוא`, `הזה` are still filler. */
const FUNCTION_PREFIXES = ['ו', 'ש', 'וש', 'כש', 'וכש', 'ה', 'וה', 'שה', 'כשה'];

/** Remainders after conjunction/article prefixes, at any length (used only to spot stop words). */
export function conjunctionStrippings(word: string): string[] {
  const out: string[] = [];
  for (const p of FUNCTION_PREFIXES) {
    if (word.length - p.length >= 2 && word.startsWith(p)) out.push(word.slice(p.length));
  }
  return out;
}
