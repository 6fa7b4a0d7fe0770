/**
 * widget/search/document-reader.ts in a real Chromium (issue 36): a customer's PDF parsed and
 * chunked in the document worker (pdf.js loaded lazily in it, its worker code in the same thread),
 * the bytes transferred, bad input refused with its code. Modules are imported from the Vite dev
 * server, on a blank page of its origin.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, type Page, test } from '@playwright/test';
import { loadPdfJs, PDF_ASSETS } from '../../builder/parse/pdf.ts';
import { parseDeviceDocument } from '../../widget/core/device/parse-device-document.ts';
import { demoPdfBytes } from '../../tools/demo-pdf.ts';

const BLANK = '/document-reader-blank.html';
/** Served by the dev server from the sources (its root is demo/, so through /@fs/); imported through a variable so that only the page resolves it. */
const READER = `/@fs${fileURLToPath(new URL('../../widget/search/document-reader.ts', import.meta.url))}`;
type ReaderModule = typeof import('../../widget/search/document-reader.ts');

async function openBlank(page: Page): Promise<void> {
  await page.route(`**${BLANK}`, (route) => route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>document reader</title>' }));
  await page.goto(BLANK);
}

const FEB_RAW = fileURLToPath(new URL('../../../shared/data/harel-feb-raw/', import.meta.url));

/** The first Harel PDF of the shared data, in sorted order (null when ../shared/data is absent). */
function firstHarelPdf(): string | null {
  if (!existsSync(FEB_RAW)) return null;
  for (const domain of readdirSync(FEB_RAW).sort()) {
    const files = join(FEB_RAW, domain, 'files');
    const pdf = existsSync(files)
      ? readdirSync(files)
          .filter((name) => name.endsWith('.pdf'))
          .sort()[0]
      : undefined;
    if (pdf) return join(files, pdf);
  }
  return null;
}

interface ReadOutcome {
  pageCount?: number;
  pageTexts?: string[];
  chunkTexts?: string[];
  chunks?: number;
  chunkPages?: number[];
  lang?: string;
  id?: string;
  progress?: string[];
  code?: string;
  message?: string;
}

/** Reads `bytes` as `name` through readDeviceDocument in the page; what it resolved to, or the error's code. */
function read(page: Page, bytes: Uint8Array, name: string): Promise<ReadOutcome> {
  return page.evaluate(
    async ({ data, name, reader }) => {
      const { readDeviceDocument } = (await import(reader)) as ReaderModule;
      const progress: string[] = [];
      try {
        const doc = await readDeviceDocument(new Blob([new Uint8Array(data)]), name, { onProgress: (p) => progress.push(`${p.step} ${p.done}/${p.total}`) });
        return {
          pageCount: doc.pageCount,
          pageTexts: doc.pageTexts,
          chunks: doc.chunks.length,
          chunkTexts: doc.chunks.map((c) => c.text),
          chunkPages: [...new Set(doc.chunks.map((c) => c.page))] as number[],
          lang: doc.lang,
          id: doc.id,
          progress,
        };
      } catch (error) {
        const e = error as { code?: string; message?: string };
        return { code: e.code, message: e.message };
      }
    },
    { data: Array.from(bytes), name, reader: READER },
  );
}

test('parses and chunks the demo PDF in the document worker', async ({ page }) => {
  await openBlank(page);
  const outcome = await read(page, demoPdfBytes(), 'my-policy.pdf');
  expect(outcome.code, outcome.message).toBeUndefined();
  expect(outcome.pageCount).toBe(3);
  expect(outcome.pageTexts?.[0]).toContain('Demo Home Insurance Policy');
  expect(outcome.pageTexts?.join('\n')).toContain('The excess for each water damage claim is 500 ILS.');
  expect(outcome.chunks).toBeGreaterThan(3);
  expect(outcome.chunkPages?.sort()).toEqual([1, 2, 3]);
  expect(outcome.lang).toBe('en');
  expect(outcome.id).toMatch(/^[0-9a-f]{64}$/);
  expect(outcome.progress).toEqual(['parse 1/3', 'parse 2/3', 'parse 3/3']);
});

test('refuses a file that is not a PDF with DOCUMENT_NOT_PDF', async ({ page }) => {
  await openBlank(page);
  const outcome = await read(page, new TextEncoder().encode('Policy number 12345: a text file, not a PDF.\n'), 'notes.txt');
  expect(outcome.code).toBe('DOCUMENT_NOT_PDF');
  expect(outcome.message).toContain('notes.txt');
});

test('cancelling terminates the worker and rejects with ABORTED', async ({ page }) => {
  await openBlank(page);
  const code = await page.evaluate(
    async ({ data, reader }) => {
      const { readDeviceDocument } = (await import(reader)) as ReaderModule;
      const controller = new AbortController();
      const reading = readDeviceDocument(new Blob([new Uint8Array(data)]), 'policy.pdf', { signal: controller.signal });
      controller.abort();
      return reading.then(
        () => 'resolved',
        (error: { code?: string }) => error.code,
      );
    },
    { data: Array.from(demoPdfBytes()), reader: READER },
  );
  expect(code).toBe('ABORTED');
});

const harelPdf = firstHarelPdf();

test.describe(() => {
  test.skip(harelPdf === null, 'needs ../shared/data/harel-feb-raw (real data, kept beside the repository)');
  test('reads a real Hebrew Harel policy in the browser as the builder reads it in Node, without cMaps or standard fonts', async ({ page }) => {
    const bytes = new Uint8Array(readFileSync(harelPdf!));
    // Node: the builder's pdf.js (legacy build) with its cMaps and standard fonts from node_modules.
    const inNode = await parseDeviceDocument(await loadPdfJs(), bytes, 'policy.pdf', { assets: PDF_ASSETS });
    await openBlank(page);
    const inBrowser = await read(page, bytes, 'policy.pdf');
    expect(inBrowser.code, inBrowser.message).toBeUndefined();
    expect(inBrowser.lang).toBe('he');
    expect(inBrowser.pageCount).toBe(inNode.pageCount);
    expect(inBrowser.pageTexts).toEqual(inNode.pageTexts);
    expect(inBrowser.chunkTexts).toEqual(inNode.chunks.map((c) => c.text));
  });
});
