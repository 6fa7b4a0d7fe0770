/**
 * A customer's own PDF → a ParsedDeviceDocument, on the device (issue 36): the builder's PDF rules
 * (core/pdf/parse-pdf.ts) and chunker (core/chunk/), so the customer's policy is read and cut as
 * the site's documents are. Runs wherever pdf.js is handed in: the document worker in a browser
 * (widget/workers/document-worker.ts), Node in the tests. Bad input is refused with a DOCUMENT_*
 * code the customer can act on, checked as cheaply as possible: size and header before pdf.js
 * sees the bytes, the page count before any page is read.
 */
import { deriveTitle } from '../chunk/title.ts';
import { pagesWithoutBidiControls } from '../bidi-controls.ts';
import { type ChunkOptions, chunkDocumentSteps } from '../chunk/index.ts';
import { createError, HarelError, throwIfAborted } from '../errors.ts';
import { sha256Hex } from '../format/bytes.ts';
import { openPdf, type PdfAssets, type PdfErrors, type PdfJs, readPdfPages } from '../pdf/parse-pdf.ts';
import type { ParsedDocument, ParsedPage, WorkOptions } from '../schema.ts';
import { runSteps } from '../steps.ts';
import { detectLang } from '../tokenizer/index.ts';
import { DEVICE_DOCUMENT_LIMITS, type ParsedDeviceDocument } from './device-document.ts';

export interface ParseDeviceDocumentOptions extends WorkOptions {
  /** Where pdf.js's cMaps and standard fonts are served (same origin); without them a few PDFs lose some glyphs' text. */
  assets?: PdfAssets;
  /** The chunker's options: the site's token counter when the caller has it (default: the builder's estimate). */
  chunking?: ChunkOptions;
}

/** PDF files start with `%PDF-`; readers accept it anywhere in the first 1024 bytes (junk before it is common). */
const HEADER_WINDOW = 1024;
const PDF_HEADER = [0x25, 0x50, 0x44, 0x46, 0x2d];

export function hasPdfHeader(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, HEADER_WINDOW) - PDF_HEADER.length;
  for (let i = 0; i <= end; i++) {
    if (PDF_HEADER.every((byte, k) => bytes[i + k] === byte)) return true;
  }
  return false;
}

const MB = 1024 * 1024;

/** pdf.js's failures as the customer's codes. */
const deviceErrors: PdfErrors = (failure, name) => {
  if (failure.kind === 'encrypted') return createError('DOCUMENT_ENCRYPTED', name);
  return new HarelError('DOCUMENT_UNREADABLE', createError('DOCUMENT_UNREADABLE', name, failure.reason).message, { cause: failure.cause });
};

/** One page's text in reading order: its blocks, one a line. */
function pageText(page: ParsedPage): string {
  return page.blocks.map((block) => block.text).join('\n');
}

/**
 * Parses and chunks a customer's PDF. `name` is what the customer sees (it is the chunks' `file`
 * too). Progress is reported per page (step 'parse'). Throws DOCUMENT_TOO_LARGE, DOCUMENT_NOT_PDF,
 * DOCUMENT_ENCRYPTED, DOCUMENT_TOO_MANY_PAGES, DOCUMENT_UNREADABLE, DOCUMENT_NO_TEXT or ABORTED.
 */
export async function parseDeviceDocument(pdfjs: PdfJs, bytes: Uint8Array, name: string, options: ParseDeviceDocumentOptions = {}): Promise<ParsedDeviceDocument> {
  const { signal, onProgress } = options;
  throwIfAborted(signal);
  const { maxBytes, maxPages } = DEVICE_DOCUMENT_LIMITS;
  if (bytes.byteLength > maxBytes) throw createError('DOCUMENT_TOO_LARGE', name, Math.round((bytes.byteLength / MB) * 10) / 10, maxBytes / MB);
  if (!hasPdfHeader(bytes)) throw createError('DOCUMENT_NOT_PDF', name);
  const id = await sha256Hex(bytes);

  const opened = await openPdf(pdfjs, bytes, name, { assets: options.assets, errors: deviceErrors });
  let parsedPages: ParsedPage[];
  try {
    if (opened.pageCount > maxPages) throw createError('DOCUMENT_TOO_MANY_PAGES', name, opened.pageCount, maxPages);
    parsedPages = (await readPdfPages(opened, name, { signal, onProgress, errors: deviceErrors })).pages;
  } finally {
    await opened.close();
  }

  // The text as the builder keeps it (builder/ingest): bidi embeddings, overrides and isolates removed.
  const pages = pagesWithoutBidiControls(parsedPages);
  const pageTexts = pages.map(pageText);
  if (pageTexts.every((text) => text.trim() === '')) throw createError('DOCUMENT_NO_TEXT', name);
  const lang = detectLang(pageTexts.join('\n'));
  // The title the builder would give it (its first heading), which search reads with its
  // passages as the site's titles are read; the customer still sees it by the name they gave.
  const title = deriveTitle(pages, name);
  const document: ParsedDocument = { file: name, url: null, domain: '', kind: 'pdf', title, lang, pages };
  const chunks = await runSteps(chunkDocumentSteps(document, 0, options.chunking), signal);
  return { id, name, title, lang, pageCount: pages.length, pageTexts, chunks };
}
