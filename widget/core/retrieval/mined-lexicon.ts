/**
 * The lexicon the builder mines from the corpus itself (short definitions, acronyms, English terms
 * beside Hebrew ones), shipped as the index's optional `lexicon` file. Curated
 * entries are trusted; mined ones are only as good as the text they came from, so the retriever
 * weighs them on their own.
 */
import { createError } from '../errors.ts';

export type MinedKind = 'definition' | 'acronym' | 'translation';

export interface MinedEntry {
  /** Interchangeable phrases, as written in the corpus. */
  phrases: string[];
  kind: MinedKind;
  /** Documents the equivalence was found in: how much the corpus vouches for it. */
  docs: number;
}

export interface MinedLexicon {
  version: 1;
  entries: MinedEntry[];
}

const KINDS: ReadonlySet<string> = new Set<MinedKind>(['definition', 'acronym', 'translation']);

/** Validates a decoded lexicon file; a malformed one is INDEX_CORRUPT (a rebuild fixes it). */
export function parseMinedLexicon(json: unknown, source = 'lexicon'): MinedLexicon {
  const m = json as Partial<MinedLexicon> | null;
  if (m?.version !== 1 || !Array.isArray(m.entries)) throw createError('INDEX_CORRUPT', source, 'not a version 1 lexicon');
  for (const e of m.entries) {
    const ok = e && Array.isArray(e.phrases) && e.phrases.length >= 2 && e.phrases.every((p) => typeof p === 'string') && KINDS.has(e.kind) && typeof e.docs === 'number';
    if (!ok) throw createError('INDEX_CORRUPT', source, 'an entry is malformed');
  }
  return m as MinedLexicon;
}
