/**
 * Query expansion: the lexicon's equivalents of phrases found in the question, as extra BM25
 * terms the retriever weighs below the customer's own words. Curated and mined equivalents are
 * kept apart so each gets its own weight. Returns what matched, so a tester can see why a
 * passage was found (`search --explain`).
 */
import { HEBREW_PREFIXES, normalizeText, tokenize } from '../tokenizer/index.ts';
import { LEXICON } from './lexicon.ts';
import type { MinedLexicon } from './mined-lexicon.ts';

export type ExpansionSource = 'curated' | 'mined';

export interface Expansion {
  /** The lexicon phrase found in the query. */
  matched: string;
  /** Its equivalents added to the query. */
  added: string[];
  source: ExpansionSource;
}

export interface ExpandedQuery {
  /** Curated equivalents as one BM25 query string (kept under this name for older callers). */
  terms: string;
  /** Mined equivalents as one BM25 query string. */
  minedTerms: string;
  expansions: Expansion[];
}

interface Phrase {
  text: string;
  terms: string[];
}

interface Group {
  phrases: Phrase[];
  source: ExpansionSource;
}

const HEBREW_WORD = /[\u05D0-\u05EA]+(?:["'][\u05D0-\u05EA]+)*'?/g;

/**
 * Two-letter remainders of prefixed Hebrew words (בצד → צד). The tokenizer keeps stems of at
 * least three letters (shorter cuts would mangle מים, של), so `בצד` never yields `צד` and a
 * lexicon phrase such as "צד ג'" would never meet the question. Here they are only used to
 * recognise lexicon phrases, never searched on their own, so the false cuts cost nothing unless a
 * two-letter lexicon word happens to match.
 */
function shortStems(query: string): string[] {
  const out: string[] = [];
  for (const [raw] of normalizeText(query).matchAll(HEBREW_WORD)) {
    if (/["']/.test(raw.slice(0, -1))) continue;
    const word = raw.replace(/'$/, '');
    for (let n = 1; n <= word.length - 2; n++) {
      if (word.length - n === 2 && HEBREW_PREFIXES.has(word.slice(0, n))) out.push(word.slice(n));
    }
  }
  return out;
}

function compile(phrases: readonly string[]): Phrase[] {
  return phrases.map((text) => ({ text, terms: tokenize(text, { forQuery: true }) })).filter((p) => p.terms.length > 0);
}

export class QueryExpander {
  private readonly groups: Group[];

  constructor(curated: readonly (readonly string[])[] = LEXICON, mined: MinedLexicon | null = null) {
    this.groups = [
      ...curated.map((g) => ({ phrases: compile(g), source: 'curated' as const })),
      ...(mined?.entries ?? []).map((e) => ({ phrases: compile(e.phrases), source: 'mined' as const })),
    ].filter((g) => g.phrases.length >= 2);
  }

  get size(): number {
    return this.groups.length;
  }

  expand(query: string): ExpandedQuery {
    const queryTerms = new Set(tokenize(query, { forQuery: true }));
    const matchable = new Set([...queryTerms, ...shortStems(query)]);
    const expansions: Expansion[] = [];
    const seen = { curated: new Set<string>(), mined: new Set<string>() };
    for (const group of this.groups) {
      const found = group.phrases.find((p) => p.terms.every((t) => matchable.has(t)));
      if (!found) continue;
      // A phrase the question only met through a two-letter remainder is itself worth searching:
      // BM25 cannot find `צד` inside `בצד` either.
      const added = group.phrases
        .filter((p) => !p.terms.every((t) => queryTerms.has(t)))
        .map((p) => p.text)
        .filter((text) => !seen[group.source].has(text));
      if (added.length === 0) continue;
      for (const text of added) seen[group.source].add(text);
      expansions.push({ matched: found.text, added, source: group.source });
    }
    const join = (source: ExpansionSource) =>
      expansions
        .filter((e) => e.source === source)
        .flatMap((e) => e.added)
        .join(' ');
    return { terms: join('curated'), minedTerms: join('mined'), expansions };
  }
}

const CURATED = new QueryExpander();

/** Curated expansion only (the index's mined lexicon needs a Retriever or a QueryExpander). */
export function expandQuery(query: string): ExpandedQuery {
  return CURATED.expand(query);
}
