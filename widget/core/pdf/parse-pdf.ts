/**
 * PDF → ParsedPage[] with pdf.js (text layer only, no OCR), wherever pdf.js runs: the builder in
 * Node (builder/parse/pdf.ts) and a customer's document in a browser worker
 * (widget/workers/document-worker.ts) share these rules, so a policy reads the same in both. The
 * caller loads pdf.js its own way and hands the module in, with where its cMaps and standard fonts
 * are. Layout reasoning lives in `lines.ts` (items → lines), `columns.ts` and `blocks.ts`
 * (lines → blocks); Hebrew order repair in `bidi-repair.ts`.
 */
import type * as PdfJsModule from 'pdfjs-dist';
import { createError, HarelError, isHarelError, throwIfAborted } from '../errors.ts';
import type { ParsedPage, WorkOptions } from '../schema.ts';
import { emptyRepairStats, repairBrackets, repairHebrewLine, type RepairStats } from './bidi-repair.ts';
import { documentStyle, linesToBlocks } from './blocks.ts';
import { orderColumns } from './columns.ts';
import { buildLines, type PdfLine, type PdfTextItem } from './lines.ts';

/** The pdf.js module (its main or legacy build), loaded by the caller. */
export type PdfJs = typeof PdfJsModule;

/** Where pdf.js finds the files some PDFs need (folder URLs ending in `/`); none given, such PDFs lose those glyphs' text. */
export interface PdfAssets {
  /** pdf.js's packed CMaps (`cmaps/`): text in CID fonts with a predefined encoding. */
  cMapUrl?: string;
  /** pdf.js's `standard_fonts/`: widths of the 14 standard fonts a PDF uses without embedding them. */
  standardFontDataUrl?: string;
}

/** An open PDF: its page count is known before any page is read. */
export interface OpenedPdf {
  document: PdfJsModule.PDFDocumentProxy;
  pageCount: number;
  /** Frees pdf.js's copy of the document; call it once, whatever happened. */
  close: () => Promise<void>;
}

/** How a PDF is opened and read: where pdf.js's files are, and which errors to throw. */
export interface PdfReadOptions extends WorkOptions {
  assets?: PdfAssets;
  /** The builder's codes unless given. */
  errors?: PdfErrors;
}

export interface PdfParseResult {
  pages: ParsedPage[];
  /** How many Hebrew lines had to be repaired. */
  repairs: RepairStats;
}

/**
 * pdf.js 6 dropped its eval-compiled font path and with it the `isEvalSupported` option; it is
 * still passed (outside the typed literal) so that an older pdf.js would never eval either.
 */
const NO_EVAL = { isEvalSupported: false };

/** Opens `bytes` (not detached: pdf.js is handed a copy). Throws PDF_ENCRYPTED or PDF_UNREADABLE (or `options.errors`' own). */
export async function openPdf(pdfjs: PdfJs, bytes: Uint8Array, file: string, options: Pick<PdfReadOptions, 'assets' | 'errors'> = {}): Promise<OpenedPdf> {
  const assets = options.assets ?? {};
  const errors = options.errors ?? BUILDER_PDF_ERRORS;
  const task = pdfjs.getDocument({
    // pdf.js transfers (detaches) the buffer it is given: hand it a copy.
    data: bytes.slice(),
    ...(assets.cMapUrl ? { cMapUrl: assets.cMapUrl, cMapPacked: true } : {}),
    ...(assets.standardFontDataUrl ? { standardFontDataUrl: assets.standardFontDataUrl } : {}),
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
    const document = await task.promise;
    if (document.numPages < 1) throw errors({ kind: 'unreadable', reason: 'no pages' }, file);
    return { document, pageCount: document.numPages, close: () => task.destroy() };
  } catch (error) {
    await task.destroy().catch(() => undefined);
    throw pdfError(error, file, errors);
  }
}

/** Why pdf.js could not read a PDF: a password, or anything else (its reason). */
export type PdfFailure = { kind: 'encrypted' } | { kind: 'unreadable'; reason: string; cause?: unknown };

/** Turns a failure into the caller's error: the builder's codes (PDF_*) or the device's (DOCUMENT_*). */
export type PdfErrors = (failure: PdfFailure, file: string) => Error;

/** The builder's codes: PDF_ENCRYPTED, PDF_UNREADABLE. */
export const BUILDER_PDF_ERRORS: PdfErrors = (failure, file) => {
  if (failure.kind === 'encrypted') return createError('PDF_ENCRYPTED', file);
  return new HarelError('PDF_UNREADABLE', createError('PDF_UNREADABLE', file, failure.reason).message, { cause: failure.cause });
};

/** pdf.js's failures (a HarelError, ABORTED included, passes as it is). */
function pdfError(error: unknown, file: string, errors: PdfErrors): Error {
  if (isHarelError(error)) return error;
  const name = (error as { name?: string } | null)?.name;
  if (name === 'PasswordException') return errors({ kind: 'encrypted' }, file);
  const reason = error instanceof Error ? error.message : String(error);
  return errors({ kind: 'unreadable', reason: reason || 'unknown error', cause: error }, file);
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

/**
 * Reads every page of an open PDF into blocks, page 1 first, reporting progress per page (step
 * 'parse'). A PDF without any text yields pages with no blocks (the caller decides what that
 * means). Throws PDF_UNREADABLE (or `options.errors`' own) or ABORTED; does not close the PDF.
 */
export async function readPdfPages(opened: OpenedPdf, file: string, options: PdfReadOptions = {}): Promise<PdfParseResult> {
  const { document, pageCount } = opened;
  const repairs = emptyRepairStats();
  const pageLines: PdfLine[][] = [];
  for (let pageNo = 1; pageNo <= pageCount; pageNo++) {
    throwIfAborted(options.signal);
    let items: PdfTextItem[];
    try {
      const page = await document.getPage(pageNo);
      const content = await page.getTextContent();
      items = (content.items as unknown[]).filter(isTextItem);
      page.cleanup();
    } catch (error) {
      throw pdfError(error, file, options.errors ?? BUILDER_PDF_ERRORS);
    }
    pageLines.push(orderColumns(repairLineBrackets(buildLines(repairItems(items, repairs)), repairs)));
    options.onProgress?.({ step: 'parse', done: pageNo, total: pageCount, detail: file });
  }
  // Heading levels are decided against the whole document so that they agree across pages.
  const style = documentStyle(pageLines);
  const pages = pageLines.map((lines, i) => ({ page: i + 1, blocks: linesToBlocks(lines, style) }));
  return { pages, repairs };
}

/** Opens, reads and closes: `readPdfPages` for a caller that needs nothing in between. */
export async function parsePdfWith(pdfjs: PdfJs, bytes: Uint8Array, file: string, options: PdfReadOptions = {}): Promise<PdfParseResult> {
  throwIfAborted(options.signal);
  const opened = await openPdf(pdfjs, bytes, file, options);
  try {
    return await readPdfPages(opened, file, options);
  } finally {
    await opened.close();
  }
}
