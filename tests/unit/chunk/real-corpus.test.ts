import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Chunk, ParsedDocument } from '../../../widget/core/schema.ts';
import { chunkDocument } from '../../../widget/core/chunk/index.ts';
import { blocksFromPageText } from './helpers.ts';

const CORPUS = fileURLToPath(new URL('../../../../shared/data/harel/corpus/', import.meta.url));
const present = existsSync(CORPUS);
if (!present) console.warn(`chunk real-corpus tests skipped: ${CORPUS} is absent (the shared data sits beside the repo).`);

interface CorpusFile {
  file: string;
  domain: string;
  kind: 'pdf' | 'page';
  url: string | null;
  pages: { page: number; text: string }[];
}

function listJson(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? listJson(join(dir, e.name)) : e.name.endsWith('.json') ? [join(dir, e.name)] : []));
}

/** A stand-in for the text parser: one text block per group of lines, nothing else guessed. */
function toParsed(raw: CorpusFile): ParsedDocument {
  const all = raw.pages.map((p) => p.text).join(' ');
  const latin = (all.match(/[A-Za-z]/g) ?? []).length;
  const hebrew = (all.match(/[\u05D0-\u05EA]/g) ?? []).length;
  return {
    file: raw.file,
    url: raw.url,
    domain: raw.domain,
    lang: latin > hebrew ? 'en' : 'he',
    title: raw.file.split('/').pop() ?? raw.file,
    kind: raw.kind === 'pdf' ? 'pdf' : 'page',
    pages: raw.pages.map((p) => ({ page: p.page, blocks: blocksFromPageText(p.text) })),
  };
}

describe.skipIf(!present)('chunking the real Harel corpus', () => {
  const maxTokens = 350;
  const docs = present ? listJson(CORPUS).map((f) => toParsed(JSON.parse(readFileSync(f, 'utf8')) as CorpusFile)) : [];
  let chunks: Chunk[] = [];
  let ms = 0;

  it('chunks all documents within bounds', () => {
    const start = performance.now();
    chunks = docs.flatMap((d, i) => chunkDocument(d, i, { maxTokens }));
    ms = performance.now() - start;
    const tokens = chunks.map((c) => c.tokens).sort((a, b) => a - b);
    const q = (p: number): number => tokens[Math.min(tokens.length - 1, Math.floor(p * tokens.length))];
    const share = (f: (c: Chunk) => boolean): string => `${((100 * chunks.filter(f).length) / chunks.length).toFixed(1)} %`;
    console.log(
      `chunk real corpus: ${docs.length} documents → ${chunks.length} chunks in ${Math.round(ms)} ms; ` +
        `tokens p50 ${q(0.5)} p95 ${q(0.95)} max ${tokens[tokens.length - 1]}; ` +
        `with clause ${share((c) => c.clause !== null)}, with sectionPath ${share((c) => c.sectionPath.length > 0)}`,
    );

    expect(docs.length).toBe(571);
    // Two corpus documents are empty; every other one yields chunks.
    expect(new Set(chunks.map((c) => c.doc)).size).toBeGreaterThanOrEqual(569);
    for (const c of chunks) {
      expect(c.text.trim()).not.toBe('');
      expect(c.tokens).toBeLessThanOrEqual(maxTokens * 1.1);
      expect(docs[c.doc].pages.some((p) => p.page === c.page)).toBe(true);
    }
    expect(q(0.5)).toBeGreaterThan(100);
    expect(chunks.filter((c) => c.clause !== null).length / chunks.length).toBeGreaterThan(0.5);
    expect(chunks.filter((c) => c.sectionPath.length > 0).length / chunks.length).toBeGreaterThan(0.5);
    // Well under a second per hundred documents on a shared 2-core machine.
    expect(ms).toBeLessThan(30_000);
  });

  it('gives unique ids within each document and keeps each chunk on its page', () => {
    const byDoc = new Map<number, Set<string>>();
    for (const c of chunks) {
      const ids = byDoc.get(c.doc) ?? new Set<string>();
      expect(ids.has(c.id)).toBe(false);
      ids.add(c.id);
      byDoc.set(c.doc, ids);
    }
    // Every line of a chunk comes from its own page (overlap included): none crosses a page. The
    // one exception by design: the header row of a table continued from the page before.
    const textOf = (d: number, page: number): string =>
      (docs[d].pages.find((p) => p.page === page)?.blocks ?? [])
        .map((b) => b.text)
        .join('\n')
        .replace(/\s+/g, ' ');
    const sample = chunks.filter((_, i) => i % 25 === 0);
    for (const c of sample) {
      const pageText = textOf(c.doc, c.page);
      const lines = c.text.split('\n');
      lines.forEach((line, i) => {
        const where = i === 0 && line.startsWith('|') && !pageText.includes(line) ? textOf(c.doc, c.page - 1) : pageText;
        for (const piece of line.split(/(?<=[.?!;])\s+/)) expect(where).toContain(piece.replace(/\s+/g, ' '));
      });
    }
  });
});
