/**
 * Page furniture: running headers and footers, page numbers, copyright lines. They repeat on most
 * pages of a document, so in an index they match every query about the document equally and push
 * real passages out of the top results; they are removed before chunking.
 */
import type { ParsedDocument, ParsedPage } from '../schema.ts';

/** Lines looked at on each edge of a page: furniture sits at the top and bottom. */
const EDGE_LINES = 3;
const PAGE_NUMBER = /^[\s\-–—|.()[\]]*(?:(?:עמוד|עמ'|עמ׳|page|p\.)\s*)?\d{1,4}(?:\s*(?:מתוך|of|\/|מ-)\s*\d{1,4})?[\s\-–—|.()[\]]*$/i;

/** Lines up to this length compare with their digits masked ("עמוד 3 מתוך 12", "Edition 03/2024"). */
const MASKED_MAX = 50;

/**
 * The key lines are compared by: spacing and case do not matter, nor digits in short lines (a
 * running footer with a page number). Longer lines must repeat exactly: masking digits there would
 * make "1. <text>" and "2. <same text>" one line.
 */
export function boilerplateKey(line: string): string {
  const key = line.replace(/\s+/g, ' ').trim().toLowerCase();
  return key.length <= MASKED_MAX ? key.replace(/\d+/g, '#') : key;
}

/** A line that is only a page number ("3", "- 3 -", "עמוד 3 מתוך 12", "Page 3 of 12"). */
export function isPageNumber(line: string): boolean {
  return PAGE_NUMBER.test(line.trim());
}

/** The lines of a page in order, as the chunker sees them (blocks split at line breaks). */
export function pageLines(page: ParsedPage): string[] {
  const lines: string[] = [];
  for (const block of page.blocks) {
    for (const line of block.text.split('\n')) {
      const t = line.trim();
      if (t) lines.push(t);
    }
  }
  return lines;
}

/**
 * Keys (see `boilerplateKey`) of the lines that sit near the top or bottom of most pages of the
 * document: on at least half its pages, and at least 3 of them (a 2-page document cannot tell a
 * header from a repeated sentence).
 */
export function findBoilerplate(doc: ParsedDocument): Set<string> {
  const pagesWith = new Map<string, number>();
  for (const page of doc.pages) {
    const lines = pageLines(page);
    const edges = lines.length <= EDGE_LINES * 2 ? lines : [...lines.slice(0, EDGE_LINES), ...lines.slice(-EDGE_LINES)];
    for (const key of new Set(edges.map(boilerplateKey))) {
      if (key.length > 200 || !/[\p{L}\d]/u.test(key)) continue;
      pagesWith.set(key, (pagesWith.get(key) ?? 0) + 1);
    }
  }
  const threshold = Math.max(3, Math.ceil(doc.pages.length / 2));
  const found = new Set<string>();
  for (const [key, count] of pagesWith) if (count >= threshold) found.add(key);
  return found;
}
