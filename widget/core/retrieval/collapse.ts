/**
 * Duplicate-aware ranking: near-identical chunks (the same clause in several editions or tiers
 * of a policy) collapse into one result that lists the others as "also in", so the top k are k
 * distinct passages. The primary citation is the most specific version: the one whose document
 * names more of the question's words, then the newest by the year in its title or file name,
 * then the best score.
 */
import type { Chunk, IndexedDocument } from '../schema.ts';
import { tokenize } from '../tokenizer/index.ts';
import type { FusedHit } from './fuse.ts';

export interface CollapsedHit extends FusedHit {
  /** The other members of the twin group that were retrieved, best score first. */
  twins: FusedHit[];
}

/** The latest year (1990–2099) named in a document's title or file name, or 0. */
export function documentYear(doc: Pick<IndexedDocument, 'file' | 'title'>): number {
  const years = `${doc.title} ${doc.file}`.match(/(?<!\d)(?:19[9]\d|20\d\d)(?!\d)/g) ?? [];
  // Compact dates in file names such as 82025 or 122025 (month + year).
  const compact = `${doc.file}`.match(/(?<!\d)\d{1,2}(20\d\d)(?!\d)/g)?.map((m) => m.slice(-4)) ?? [];
  return Math.max(0, ...[...years, ...compact].map(Number));
}

export function collapseTwins(hits: readonly FusedHit[], chunks: readonly Chunk[], documents: readonly IndexedDocument[], query: string): CollapsedHit[] {
  const queryTerms = new Set(tokenize(query, { forQuery: true }));
  const specificity = (hit: FusedHit): number => {
    const doc = documents[chunks[hit.chunk].doc];
    return tokenize(`${doc.title} ${doc.file.replace(/[-_./]+/g, ' ')}`).filter((t) => queryTerms.has(t)).length;
  };
  const groups = new Map<number, FusedHit[]>();
  const order: (FusedHit[] | FusedHit)[] = [];
  for (const hit of hits) {
    const twin = chunks[hit.chunk].twin;
    if (twin === undefined) {
      order.push(hit);
      continue;
    }
    const members = groups.get(twin);
    if (members) members.push(hit);
    else {
      const list = [hit];
      groups.set(twin, list);
      order.push(list);
    }
  }
  return order.map((entry) => {
    if (!Array.isArray(entry)) return { ...entry, twins: [] };
    const ranked = [...entry].sort((a, b) => specificity(b) - specificity(a) || documentYear(documents[chunks[b.chunk].doc]) - documentYear(documents[chunks[a.chunk].doc]) || b.score - a.score);
    const [primary, ...others] = ranked;
    // The group keeps the rank its best member earned.
    return { ...primary, score: entry[0].score, twins: others };
  });
}
