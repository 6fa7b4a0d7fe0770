/**
 * Ranked chunks grouped by page or by section of a page, each group in the order of its best
 * chunk. Search returns one result per section (its best chunk: the answer widens a hit to its
 * section anyway); the page fitting script reads whole pages.
 */
import type { Chunk } from '../schema.ts';

/** Where a chunk lies: its document, page and section (any value shared by the chunks of one section of a page). */
export interface ChunkPlace {
  doc: number;
  page: number;
  section: number | string;
}

/** Chunk number → its place. The retriever reads places from the BM25 base, not from the chunks (index-by-need.ts). */
export type PlaceOf = (chunk: number) => ChunkPlace;

/** Places read from the chunks themselves (the fitting scripts, tests). */
export const placesOf =
  (chunks: readonly Pick<Chunk, 'doc' | 'page' | 'parentId'>[]): PlaceOf =>
  (i) => {
    const c = chunks[i];
    return { doc: c.doc, page: c.page, section: c.parentId };
  };

/** One page of the first stage's pool: its chunks in rank order (best first) with their scores. */
export interface PageCandidate {
  doc: number;
  page: number;
  /** Indexes into the index's chunk table. */
  chunks: number[];
  scores: number[];
}

/** Groups ranked chunks by page, pages in the order of their best chunk. */
export function groupByPage(hits: readonly { chunk: number; score: number }[], place: PlaceOf): PageCandidate[] {
  return groupBy(hits, place, (c) => `${c.doc}:${c.page}`);
}

/**
 * Groups ranked chunks by section on a page (a page of a PDF holds several; a Markdown or HTML
 * document is one long page of many), in the order of each group's best chunk.
 */
export function groupBySection(hits: readonly { chunk: number; score: number }[], place: PlaceOf): PageCandidate[] {
  return groupBy(hits, place, (c) => `${c.doc}:${c.page}:${c.section}`);
}

function groupBy(hits: readonly { chunk: number; score: number }[], place: PlaceOf, keyOf: (c: ChunkPlace) => string): PageCandidate[] {
  const byPage = new Map<string, PageCandidate>();
  const order: PageCandidate[] = [];
  for (const h of hits) {
    const c = place(h.chunk);
    const key = keyOf(c);
    let page = byPage.get(key);
    if (!page) {
      page = { doc: c.doc, page: c.page, chunks: [], scores: [] };
      byPage.set(key, page);
      order.push(page);
    }
    page.chunks.push(h.chunk);
    page.scores.push(h.score);
  }
  return order;
}
