/**
 * Is a citation true to the index? Its file and page must exist, and its quote must be text of
 * that page. Whitespace is normalised on both sides: the widget may re-flow a quote, never reword it.
 */
import type { Citation } from '../../../widget/answer/types.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';

export type CitationProblem = 'unknown-file' | 'unknown-page' | 'quote-not-on-page' | null;

export interface PageTexts {
  has(file: string): boolean;
  /** The page's chunk texts joined, whitespace-normalised; undefined when the page is not indexed. */
  page(file: string, page: number): string | undefined;
}

export function normalizeSpace(text: string): string {
  return text.replace(/\s+/gu, ' ').trim();
}

export function pageTexts(documents: readonly IndexedDocument[], chunks: readonly Pick<Chunk, 'doc' | 'page' | 'text'>[]): PageTexts {
  const pages = new Map<string, string[]>();
  for (const c of chunks) {
    const key = `${documents[c.doc].file}\u0000${c.page}`;
    const list = pages.get(key);
    if (list) list.push(c.text);
    else pages.set(key, [c.text]);
  }
  const files = new Set(documents.map((d) => d.file));
  const joined = new Map([...pages].map(([key, texts]) => [key, normalizeSpace(texts.join(' '))]));
  return { has: (file) => files.has(file), page: (file, page) => joined.get(`${file}\u0000${page}`) };
}

export function citationProblem(citation: Pick<Citation, 'file' | 'page' | 'quote'>, pages: PageTexts): CitationProblem {
  if (!pages.has(citation.file)) return 'unknown-file';
  const text = pages.page(citation.file, citation.page);
  if (text === undefined) return 'unknown-page';
  // A quote may join sentences of the passage with " … ": each piece must be on the page.
  const pieces = normalizeSpace(citation.quote)
    .split(/\s*…\s*/u)
    .filter(Boolean);
  return pieces.every((p) => text.includes(p)) ? null : 'quote-not-on-page';
}
