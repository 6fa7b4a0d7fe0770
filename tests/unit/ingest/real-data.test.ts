import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ingest, type PdfParser } from '../../../builder/ingest/index.ts';

const DATA = fileURLToPath(new URL('../../../../shared/data/', import.meta.url));
const CORPUS = join(DATA, 'harel/corpus');
const FEB_RAW = join(DATA, 'harel-feb-raw');

const noPdf: PdfParser = async (_bytes, file) => {
  throw new Error(`the corpus holds no PDFs, yet ${file} was sent to the PDF parser`);
};

function jsonFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? jsonFiles(join(dir, e.name)) : e.name.endsWith('.json') ? [join(dir, e.name)] : []));
}

if (!existsSync(CORPUS)) console.warn(`Skipping the Harel corpus ingest tests: ${CORPUS} is absent (shared data not on this machine).`);
if (!existsSync(FEB_RAW)) console.warn(`Skipping the harel-feb-raw ingest tests: ${FEB_RAW} is absent (shared data not on this machine).`);

describe.skipIf(!existsSync(CORPUS))('ingest of the shared Harel corpus (571 parsed-page JSON files)', () => {
  it('accounts for every file: 569 documents with text, 2 empty; 43 of the 569 repeat earlier text', async () => {
    const started = performance.now();
    const result = await ingest([CORPUS], { parsePdf: noPdf });
    const ms = performance.now() - started;
    console.info(`harel corpus ingest: ${ms.toFixed(0)} ms, ${result.documents.length} documents, ${result.duplicates.length} duplicates, ${result.skipped.length} skipped`);

    expect(result.skipped.map((s) => [s.code, s.file])).toEqual([
      ['EMPTY_DOCUMENT', 'car/files/טבלת-המועדים-92017-82025.pdf.json'],
      ['EMPTY_DOCUMENT', 'dental/files/טופס-בדיקה-לטיפולים-פריודונטליים-ביטוח-שיניים.pdf.json'],
    ]);
    // The corpus files the same form under several domains (and some twice under two spellings).
    expect(result.documents.length + result.duplicates.length).toBe(569);
    expect(result.duplicates).toHaveLength(43);
    expect(result.duplicates.every((d) => d.code === 'DUPLICATE_FILE' && d.duplicateOf)).toBe(true);
    expect(new Set(result.documents.map((d) => d.domain)).size).toBe(12);
  });

  it('keeps all 569 when not deduplicating, each keyed by its JSON file field with its domain, url and kind', async () => {
    const { documents, skipped } = await ingest([CORPUS], { parsePdf: noPdf, dedupe: false });
    expect(documents).toHaveLength(569);
    expect(skipped).toHaveLength(2);
    const byFile = new Map(documents.map((d) => [d.file, d]));
    const empty = new Set(skipped.map((s) => s.file));
    let checked = 0;
    for (const path of jsonFiles(CORPUS)) {
      const json = JSON.parse(readFileSync(path, 'utf8')) as { file: string; domain: string; kind: string; url: string | null; pages: { page: number }[] };
      if (empty.has(path.slice(CORPUS.length + 1))) continue;
      const doc = byFile.get(json.file);
      expect(doc, json.file).toBeDefined();
      expect([doc!.domain, doc!.url, doc!.kind]).toEqual([json.domain, json.url, json.kind]);
      expect(doc!.pages.map((p) => p.page)).toEqual(json.pages.map((p) => p.page));
      checked++;
    }
    expect(checked).toBe(569);
    expect(new Set(documents.map((d) => d.domain)).size).toBe(12);
    expect(documents.filter((d) => d.lang === 'en').length).toBeGreaterThan(10);
    expect(documents.every((d) => d.title.trim().length > 0)).toBe(true);
  });
});

describe.skipIf(!existsSync(FEB_RAW))('ingest of harel-feb-raw scraped pages', () => {
  it('reads every .aspx as non-empty Hebrew text, and reports the spreadsheets as unsupported', async () => {
    // The PDFs are stood in for: parsing 100 real PDFs is the PDF parser's own test.
    const stub: PdfParser = async () => [{ page: 1, blocks: [{ type: 'text', text: 'stub' }] }];
    const { documents, skipped } = await ingest([FEB_RAW], { parsePdf: stub });
    const pages = documents.filter((d) => d.file.endsWith('.aspx'));
    expect(pages).toHaveLength(257);
    for (const page of pages) {
      expect(page.kind, page.file).toBe('txt');
      expect(page.lang, page.file).toBe('he');
      expect(page.pages[0].blocks.map((b) => b.text).join(' ').length, page.file).toBeGreaterThan(500);
    }
    expect(skipped.map((s) => s.code)).toEqual(['UNSUPPORTED_EXTENSION', 'UNSUPPORTED_EXTENSION']);
    expect(new Set(documents.map((d) => d.domain))).toEqual(new Set(['apartment', 'business', 'car', 'health', 'life', 'travel']));
  });
});
