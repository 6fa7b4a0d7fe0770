/**
 * PDF → ParsedPage[] with pdf.js (text layer only, no OCR). Layout reasoning lives in
 * `pdf/lines.ts` (items → lines) and `pdf/blocks.ts` (lines → blocks); Hebrew order repair in
 * `pdf/bidi-repair.ts`.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ParsedPage, WorkOptions } from '../../widget/core/schema.ts';
import { createError, isHarelError, throwIfAborted } from '../../widget/core/errors.ts';
import { buildLines, type PdfLine, type PdfTextItem } from './pdf/lines.ts';
import { documentStyle, linesToBlocks } from './pdf/blocks.ts';
import { orderColumns } from './pdf/columns.ts';
import { emptyRepairStats, repairBrackets, repairHebrewLine, type RepairStats } from './pdf/bidi-repair.ts';

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

const PDFJS_ROOT = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

let pdfjsPromise: Promise<PdfJs> | null = null;

/** Loads pdf.js once, after the polyfills it needs, with its worker running in this thread. */
function loadPdfJs(): Promise<PdfJs> {
  pdfjsPromise ??= (async () => {
    // pdf.js calls Promise.withResolvers, which Node 20 lacks. The pinned 5.6 (the last release
    // that supports Node 20) ships a polyfill in its legacy build; this one keeps a later pdf.js
    // working on Node 20 too. It must exist before the module is evaluated, hence the dynamic
    // imports below.
    if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== 'function') {
      Object.defineProperty(Promise, 'withResolvers', {
        configurable: true,
        writable: true,
        value<T>() {
          let resolve!: (value: T | PromiseLike<T>) => void;
          let reject!: (reason?: unknown) => void;
          const promise = new Promise<T>((res, rej) => {
            resolve = res;
            reject = rej;
          });
          return { promise, resolve, reject };
        },
      });
    }
    const pdfjs = await import('pdfjs-dist/legacy/build/pdf.mjs');
    // Node has no web workers: pdf.js runs its worker code in this thread when it finds the
    // worker module on globalThis.pdfjsWorker (its documented "fake worker" path).
    const holder = globalThis as { pdfjsWorker?: unknown };
    const workerModule: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs'; // ships without types
    holder.pdfjsWorker ??= await import(workerModule);
    return pdfjs;
  })();
  return pdfjsPromise;
}

/**
 * pdf.js 6 dropped its eval-compiled font path and with it the `isEvalSupported` option; it is
 * still passed (outside the typed literal) so that an older pdf.js would never eval either.
 */
const NO_EVAL = { isEvalSupported: false };

type LoadedDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;

async function openDocument(bytes: Uint8Array, file: string): Promise<{ doc: LoadedDocument; destroy: () => Promise<void> }> {
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({
    // pdf.js transfers (detaches) the buffer it is given: hand it a copy.
    data: bytes.slice(),
    cMapUrl: `${join(PDFJS_ROOT, 'cmaps')}/`,
    cMapPacked: true,
    standardFontDataUrl: `${join(PDFJS_ROOT, 'standard_fonts')}/`,
    ...NO_EVAL,
    useWorkerFetch: false,
    disableFontFace: true,
    useSystemFonts: false,
    disableAutoFetch: true,
    disableStream: true,
    stopAtErrors: false,
    verbosity: pdfjs.VerbosityLevel.ERRORS,
  });
  try {
    const doc = await task.promise;
    if (doc.numPages < 1) throw createError('PDF_UNREADABLE', file, 'no pages');
    return { doc, destroy: () => task.destroy() };
  } catch (error) {
    await task.destroy().catch(() => undefined);
    throw toHarelError(error, file);
  }
}

function toHarelError(error: unknown, file: string): Error {
  if (isHarelError(error)) return error;
  const name = (error as { name?: string } | null)?.name;
  if (name === 'PasswordException') return createError('PDF_ENCRYPTED', file);
  const reason = error instanceof Error ? error.message : String(error);
  const wrapped = createError('PDF_UNREADABLE', file, reason || 'unknown error');
  (wrapped as { cause?: unknown }).cause = error;
  return wrapped;
}

function isTextItem(item: unknown): item is PdfTextItem {
  return typeof item === 'object' && item !== null && 'str' in item && 'transform' in item;
}

/** Repairs each pdf.js run on its own: reversal and mirroring happen per run, not per line. */
function repairItems(items: PdfTextItem[], stats: RepairStats): PdfTextItem[] {
  return items.map((item) => {
    if (!/[\u05D0-\u05EA]/.test(item.str)) return item;
    const str = repairHebrewLine(item.str, stats);
    return str === item.str ? item : { ...item, str };
  });
}

/** Brackets split into runs of their own are only visible as mirrored once the line is built. */
function repairLineBrackets(lines: PdfLine[], stats: RepairStats): PdfLine[] {
  return lines.map((line) => {
    if (!line.rtl) return line;
    const cells = line.cells.map((cell) => ({ ...cell, text: repairBrackets(cell.text, stats) }));
    return { ...line, cells, text: cells.map((c) => c.text).join(' ') };
  });
}

/** Number of pages, or PDF_ENCRYPTED / PDF_UNREADABLE. */
export async function pdfPageCount(bytes: Uint8Array, file = 'document.pdf'): Promise<number> {
  const { doc, destroy } = await openDocument(bytes, file);
  try {
    return doc.numPages;
  } finally {
    await destroy();
  }
}

export interface PdfParseResult {
  pages: ParsedPage[];
  repairs: RepairStats;
}

/** Like parsePdf, and also says how many Hebrew lines had to be repaired. */
export async function parsePdfDetailed(bytes: Uint8Array, file: string, options: WorkOptions = {}): Promise<PdfParseResult> {
  throwIfAborted(options.signal);
  const { doc, destroy } = await openDocument(bytes, file);
  const repairs = emptyRepairStats();
  try {
    const pageLines: PdfLine[][] = [];
    for (let pageNo = 1; pageNo <= doc.numPages; pageNo++) {
      throwIfAborted(options.signal);
      let items: PdfTextItem[];
      try {
        const page = await doc.getPage(pageNo);
        const content = await page.getTextContent();
        items = (content.items as unknown[]).filter(isTextItem);
        page.cleanup();
      } catch (error) {
        throw toHarelError(error, file);
      }
      pageLines.push(orderColumns(repairLineBrackets(buildLines(repairItems(items, repairs)), repairs)));
      options.onProgress?.({ step: 'parse', done: pageNo, total: doc.numPages, detail: file });
    }
    // Heading levels are decided against the whole document so that they agree across pages.
    const style = documentStyle(pageLines);
    const pages = pageLines.map((lines, i) => ({ page: i + 1, blocks: linesToBlocks(lines, style) }));
    return { pages, repairs };
  } finally {
    await destroy();
  }
}

/**
 * Parses a PDF's text layer into pages of blocks. A PDF without any text yields pages with no
 * blocks (the caller reports EMPTY_DOCUMENT). Throws PDF_ENCRYPTED, PDF_UNREADABLE or ABORTED.
 */
export async function parsePdf(bytes: Uint8Array, file: string, options?: WorkOptions): Promise<ParsedPage[]> {
  return (await parsePdfDetailed(bytes, file, options)).pages;
}
