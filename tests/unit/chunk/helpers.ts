import type { Block, ParsedDocument } from '../../../widget/core/schema.ts';

/** A document from pages of blocks; a string is one text block. */
export function makeDoc(pages: (Block | string)[][], file = 'test/policy.pdf', lang: 'he' | 'en' = 'he'): ParsedDocument {
  return {
    file,
    url: null,
    domain: 'test',
    lang,
    title: 'Test policy',
    kind: 'pdf',
    pages: pages.map((blocks, i) => ({
      page: i + 1,
      blocks: blocks.map((b) => (typeof b === 'string' ? { type: 'text', text: b } : b)),
    })),
  };
}

/** One text block per group of lines separated by blank lines: the corpus-page adapter. */
export function blocksFromPageText(text: string): Block[] {
  return text
    .split(/\n\s*\n/)
    .map((g) => g.trim())
    .filter(Boolean)
    .map((g) => ({ type: 'text', text: g }));
}
