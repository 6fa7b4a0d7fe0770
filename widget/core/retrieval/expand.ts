/**
 * Query expansion: the lexicon's equivalents of phrases found in the question, as extra BM25
 * terms the retriever weighs below the customer's own words. Returns what matched, so a tester
 * can see why a passage was found (`search --explain`).
 */
import { tokenize } from '../tokenizer/index.ts';
import { LEXICON } from './lexicon.ts';

export interface Expansion {
  /** The lexicon phrase found in the query. */
  matched: string;
  /** Its equivalents added to the query. */
  added: string[];
}

interface Entry {
  phrases: { text: string; terms: string[] }[];
}

const ENTRIES: Entry[] = LEXICON.map((group) => ({ phrases: group.map((text) => ({ text, terms: tokenize(text, { forQuery: true }) })) }));

export function expandQuery(query: string): { terms: string; expansions: Expansion[] } {
  const queryTerms = new Set(tokenize(query, { forQuery: true }));
  const expansions: Expansion[] = [];
  for (const entry of ENTRIES) {
    const found = entry.phrases.find((p) => p.terms.length > 0 && p.terms.every((t) => queryTerms.has(t)));
    if (!found) continue;
    const added = entry.phrases.filter((p) => p !== found && !p.terms.every((t) => queryTerms.has(t))).map((p) => p.text);
    if (added.length) expansions.push({ matched: found.text, added });
  }
  return { terms: expansions.flatMap((e) => e.added).join(' '), expansions };
}
