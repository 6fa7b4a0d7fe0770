/**
 * PDF → ParsedPage[] in Node: loads pdf.js (with the polyfill and the in-thread worker Node needs)
 * and its cMaps and standard fonts from node_modules, then parses with the rules the widget shares
 * (widget/core/pdf/parse-pdf.ts), so a customer's document on the device reads as the build does.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ParsedPage, WorkOptions } from '../../widget/core/schema.ts';
import { throwIfAborted } from '../errors.ts';
import { openPdf, parsePdfWith, type PdfAssets, type PdfJs, type PdfParseResult } from '../../widget/core/pdf/parse-pdf.ts';

export type { PdfParseResult };

const PDFJS_ROOT = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

/** pdf.js's own files (cMaps, standard fonts), read from node_modules. */
export const PDF_ASSETS: PdfAssets = { cMapUrl: `${join(PDFJS_ROOT, 'cmaps')}/`, standardFontDataUrl: `${join(PDFJS_ROOT, 'standard_fonts')}/` };

let pdfjsPromise: Promise<PdfJs> | null = null;

/** Loads pdf.js once, after the polyfills it needs, with its worker running in this thread. */
export function loadPdfJs(): Promise<PdfJs> {
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

/** Number of pages, or PDF_ENCRYPTED / PDF_UNREADABLE. */
export async function pdfPageCount(bytes: Uint8Array, file = 'document.pdf'): Promise<number> {
  const opened = await openPdf(await loadPdfJs(), bytes, file, { assets: PDF_ASSETS });
  await opened.close();
  return opened.pageCount;
}

/** Like parsePdf, and also says how many Hebrew lines had to be repaired. */
export async function parsePdfDetailed(bytes: Uint8Array, file: string, options: WorkOptions = {}): Promise<PdfParseResult> {
  throwIfAborted(options.signal);
  return parsePdfWith(await loadPdfJs(), bytes, file, { ...options, assets: PDF_ASSETS });
}

/**
 * Parses a PDF's text layer into pages of blocks. A PDF without any text yields pages with no
 * blocks (the caller reports EMPTY_DOCUMENT). Throws PDF_ENCRYPTED, PDF_UNREADABLE or ABORTED.
 */
export async function parsePdf(bytes: Uint8Array, file: string, options?: WorkOptions): Promise<ParsedPage[]> {
  return (await parsePdfDetailed(bytes, file, options)).pages;
}
