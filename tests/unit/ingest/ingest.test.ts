import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingest, type IngestResult, type PdfParser } from '../../../builder/ingest/index.ts';
import { parseManifest } from '../../../builder/ingest/manifest.ts';
import { createError, isHarelError } from '../../../builder/errors.ts';
import type { Progress } from '../../../widget/core/schema.ts';

const HTML = '<html><body><nav>menu</nav><h1>ביטוח דירה</h1><p>הפוליסה מכסה נזקי מים ואש בדירה.</p></body></html>';

function write(root: string, file: string, content: string | Uint8Array): void {
  mkdirSync(dirname(join(root, file)), { recursive: true });
  writeFileSync(join(root, file), content);
}

function pageJson(file: string, domain: string, text: string, url: string | null = null): string {
  return JSON.stringify({ file, domain, kind: 'txt', url, pages: [{ page: 1, text }] });
}

/** Stands in for pdf.js: "%PDF" bytes parse to one page, anything else is unreadable. */
const fakePdf: PdfParser = async (bytes, file) => {
  if (new TextDecoder().decode(bytes.slice(0, 4)) !== '%PDF') throw createError('PDF_UNREADABLE', file, 'no PDF header');
  return [{ page: 1, blocks: [{ type: 'text', text: 'Policy wording in English only.' }] }];
};

let root: string;
let result: IngestResult;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'harel-ingest-'));
  write(
    root,
    'manifest.json',
    JSON.stringify({
      'apartment/page.html': 'https://example.com/apartment',
      'notes.md': { url: 'https://example.com/notes', domain: 'travel', title: 'Travel notes', etag: '"abc"', sha256: 'ff' },
    }),
  );
  write(root, 'apartment/page.html', HTML);
  write(root, 'apartment/z-copy.htm', HTML);
  write(root, 'notes.md', '# Notes\n\nTravel cover starts at departure.');
  write(root, 'readme.txt', 'A root level note about the general terms of cover.');
  write(root, 'car/policy.pdf', '%PDF-1.7 fake');
  write(root, 'car/broken.pdf', new Uint8Array([1, 2, 3, 4, 5]));
  write(root, 'car/bad.json', '{"file": "car/x.txt", ');
  write(root, 'car/shape.json', JSON.stringify({ hello: 'world' }));
  write(root, 'car/empty.txt', '  \n\n \t ');
  write(root, 'car/latin1.txt', new Uint8Array([0xff, 0xfe, 0x00]));
  // "ביטוח" in windows-1255, as old Hebrew Windows tools save it.
  write(root, 'car/hebrew-1255.txt', new Uint8Array([0xe1, 0xe9, 0xe8, 0xe5, 0xe7]));
  write(root, 'car/sheet.xlsx', 'PK fake');
  write(root, 'car/.hidden.txt', 'dotfiles are not inputs');
  write(root, '.cache/x.txt', 'nor are dot-folders');
  write(root, 'dental/pages/faq.txt.json', pageJson('dental/pages/faq.txt', 'dental', 'שאלות נפוצות\nמה מכסה ביטוח השיניים? טיפולים משמרים.', 'https://example.com/faq'));
  write(root, 'dental/pages/faq2.txt.json', pageJson('dental/pages/faq2.txt', 'dental', 'שאלות נפוצות\nמה מכסה ביטוח השיניים? טיפולים משמרים.'));
  write(root, 'health/scraped.aspx', 'ביטוח בריאות | הראל ביטוח ופיננסים ביטוח בריאות פרטי מעניק כיסוי לניתוחים.');
  write(root, 'health/bom.txt', '\uFEFFתנאי הפוליסה חלים על המבוטח.');
  result = await ingest([root], { parsePdf: fakePdf });
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

const doc = (file: string) => result.documents.find((d) => d.file === file);
const skip = (file: string) => result.skipped.find((s) => s.file === file);

describe('ingest on a folder with every kind of bad input', () => {
  it('indexes the good files in sorted walk order, skipping dotfiles and the manifest', () => {
    expect(result.documents.map((d) => d.file)).toEqual(['apartment/page.html', 'car/policy.pdf', 'dental/pages/faq.txt', 'health/bom.txt', 'health/scraped.aspx', 'notes.md', 'readme.txt']);
  });

  it('reports every unusable file with its code and the registry sentence', () => {
    const codes = Object.fromEntries(result.skipped.map((s) => [s.file, s.code]));
    expect(codes).toEqual({
      'car/bad.json': 'INVALID_JSON',
      'car/broken.pdf': 'PDF_UNREADABLE',
      'car/empty.txt': 'EMPTY_DOCUMENT',
      'car/hebrew-1255.txt': 'NOT_UTF8',
      'car/latin1.txt': 'NOT_UTF8',
      'car/shape.json': 'INVALID_PAGE_JSON',
      'car/sheet.xlsx': 'UNSUPPORTED_EXTENSION',
    });
    for (const s of result.skipped) expect(s.reason.startsWith(`${s.file}: `)).toBe(true);
    expect(skip('car/broken.pdf')?.reason).toContain('no PDF header');
    expect(skip('car/shape.json')?.reason).toContain('"file" must be a non-empty string');
    expect(skip('car/empty.txt')?.reason).toBe(createError('EMPTY_DOCUMENT', 'car/empty.txt').message);
  });

  it('indexes duplicate content once and names the first copy', () => {
    expect(result.duplicates).toEqual([
      { file: 'apartment/z-copy.htm', code: 'DUPLICATE_FILE', reason: createError('DUPLICATE_FILE', 'apartment/z-copy.htm', 'apartment/page.html').message, duplicateOf: 'apartment/page.html' },
      { file: 'dental/pages/faq2.txt', code: 'DUPLICATE_FILE', reason: createError('DUPLICATE_FILE', 'dental/pages/faq2.txt', 'dental/pages/faq.txt').message, duplicateOf: 'dental/pages/faq.txt' },
    ]);
  });

  it('takes URL, domain and title from the manifest, else the first folder level, else "general"', () => {
    expect(doc('apartment/page.html')).toMatchObject({ url: 'https://example.com/apartment', domain: 'apartment', kind: 'html', lang: 'he', title: 'ביטוח דירה' });
    expect(doc('notes.md')).toMatchObject({ url: 'https://example.com/notes', domain: 'travel', kind: 'md', lang: 'en', title: 'Travel notes' });
    expect(doc('readme.txt')).toMatchObject({ url: null, domain: 'general', kind: 'txt', lang: 'en' });
    expect(doc('car/policy.pdf')).toMatchObject({ url: null, domain: 'car', kind: 'pdf', lang: 'en' });
  });

  it('keys a parsed-page JSON by its own file field, with its domain, url and kind', () => {
    expect(doc('dental/pages/faq.txt')).toMatchObject({ url: 'https://example.com/faq', domain: 'dental', kind: 'txt', lang: 'he', title: 'שאלות נפוצות' });
  });

  it('reads a text-saved .aspx as text, strips a BOM, and drops the HTML navigation', () => {
    expect(doc('health/scraped.aspx')).toMatchObject({ kind: 'txt', title: 'ביטוח בריאות' });
    expect(doc('health/bom.txt')?.pages[0].blocks[0].text).toBe('תנאי הפוליסה חלים על המבוטח.');
    expect(JSON.stringify(doc('apartment/page.html')?.pages)).not.toContain('menu');
  });

  it('is deterministic', async () => {
    const again = await ingest([root], { parsePdf: fakePdf });
    expect(again).toEqual(result);
  });

  it('keeps content duplicates when asked not to dedupe', async () => {
    const all = await ingest([root], { parsePdf: fakePdf, dedupe: false });
    expect(all.documents.map((d) => d.file)).toContain('apartment/z-copy.htm');
    expect(all.documents.map((d) => d.file)).toContain('dental/pages/faq2.txt');
    expect(all.duplicates).toEqual([]);
  });

  it('reports progress per file and stops when aborted', async () => {
    const events: Progress[] = [];
    await ingest([root], { parsePdf: fakePdf, onProgress: (p) => events.push(p) });
    const total = events[0].total;
    expect(total).toBe(16);
    expect(events.every((e) => e.step === 'parse' && e.total === total)).toBe(true);
    expect(events.at(-1)?.done).toBe(total);
    expect(new Set(events.map((e) => e.detail).filter(Boolean)).size).toBe(total);

    const controller = new AbortController();
    const seen: Progress[] = [];
    const aborted = ingest([root], {
      parsePdf: fakePdf,
      signal: controller.signal,
      onProgress: (p) => {
        seen.push(p);
        if (p.done === 2) controller.abort();
      },
    });
    await expect(aborted).rejects.toSatisfy((e: unknown) => isHarelError(e, 'ABORTED'));
    expect(seen.at(-1)!.done).toBeLessThan(total!);
  });
});

describe('ingest inputs and manifests', () => {
  it('treats two inputs giving the same file key as a duplicate', async () => {
    const a = mkdtempSync(join(tmpdir(), 'harel-ingest-a-'));
    const b = mkdtempSync(join(tmpdir(), 'harel-ingest-b-'));
    try {
      write(a, 'car/terms.txt', 'Version A of the terms and conditions.');
      write(b, 'car/terms.txt', 'Version B of the terms and conditions.');
      const { documents, duplicates } = await ingest([a, b]);
      expect(documents.map((d) => d.pages[0].blocks[0].text)).toEqual(['Version A of the terms and conditions.']);
      expect(duplicates).toHaveLength(1);
      expect(duplicates[0]).toMatchObject({ file: 'car/terms.txt', code: 'DUPLICATE_KEY', duplicateOf: 'car/terms.txt' });
      expect(duplicates[0].reason).toContain(`${a}/car/terms.txt`);
    } finally {
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
  });

  it('skips an invalid manifest with INVALID_MANIFEST and falls back to folder domains', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harel-ingest-m-'));
    try {
      write(dir, 'manifest.json', JSON.stringify({ 'life/a.txt': 42 }));
      write(dir, 'life/a.txt', 'Life cover pays the sum insured on death.');
      const { documents, skipped } = await ingest([dir]);
      expect(skipped.map((s) => s.code)).toEqual(['INVALID_MANIFEST']);
      expect(skipped[0].reason).toContain('"life/a.txt" must map to a URL or an object');
      expect(documents[0]).toMatchObject({ file: 'life/a.txt', domain: 'life', url: null });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads the crawler manifest shape, with or without a top-level files wrapper', () => {
    const record = { url: 'https://a.example/x', finalUrl: 'https://a.example/y', domain: 'car', contentType: 'text/html', fetchedAt: '2026-01-01', etag: null, lastModified: null, sha256: 'ab' };
    // Citations link to where the content was served after redirects; the requested URL is the fallback.
    expect(parseManifest(JSON.stringify({ files: { './car/x.html': record } }), 'manifest.json').get('car/x.html')).toEqual({ url: 'https://a.example/y', domain: 'car', title: undefined });
    expect(parseManifest(JSON.stringify({ 'car/x.html': { ...record, finalUrl: undefined } }), 'manifest.json').get('car/x.html')?.url).toBe('https://a.example/x');
    expect(() => parseManifest('[1]', 'manifest.json')).toThrow(/top level must be an object/);
    expect(() => parseManifest('{', 'manifest.json')).toThrow(/not valid JSON/);
  });

  it('throws NO_DOCUMENTS when nothing is usable, INPUT_NOT_FOUND for a missing folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harel-ingest-n-'));
    try {
      write(dir, 'a.xlsx', 'x');
      write(dir, 'b.txt', '');
      await expect(ingest([dir])).rejects.toSatisfy((e: unknown) => isHarelError(e, 'NO_DOCUMENTS'));
      await expect(ingest([join(dir, 'missing')])).rejects.toSatisfy((e: unknown) => isHarelError(e, 'INPUT_NOT_FOUND'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('records an unreadable PDF from the real parser without failing the run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'harel-ingest-p-'));
    try {
      write(dir, 'car/garbage.pdf', new Uint8Array(Array.from({ length: 256 }, (_, i) => (i * 37) % 256)));
      write(dir, 'car/ok.txt', 'Some usable text.');
      const { documents, skipped } = await ingest([dir]);
      expect(documents.map((d) => d.file)).toEqual(['car/ok.txt']);
      expect(skipped).toHaveLength(1);
      expect(skipped[0]).toMatchObject({ file: 'car/garbage.pdf', code: 'PDF_UNREADABLE' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
