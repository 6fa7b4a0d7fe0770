/**
 * One input file → parsed pages, dispatched by extension. Bad input is reported as a HarelError
 * with the file's code; the caller records it and goes on.
 */
import { createHash } from 'node:crypto';
import { createError, isHarelError } from '../errors.ts';
import type { DocumentKind, ParsedPage, WorkOptions } from '../../widget/core/schema.ts';
import { parseWebFile } from '../parse/html.ts';
import { parseMarkdownSteps } from '../parse/markdown.ts';
import { parsePageJson, type PageJsonMeta, type PageText } from '../parse/page-json.ts';
import { parseTextSteps } from '../parse/text.ts';
import { runSteps } from '../../widget/core/steps.ts';

/** The shape of `parsePdf` in `builder/parse/pdf.ts` (run in a worker thread by default); tests inject their own, run in this thread. */
export type PdfParser = (bytes: Uint8Array, file: string, options?: WorkOptions) => Promise<ParsedPage[]>;

export interface ParsedFile {
  kind: DocumentKind;
  pages: ParsedPage[];
  /** Hash that identifies the content for duplicate detection. */
  contentHash: string;
  /** Set for parsed-page JSON: the document's own citation key, domain and URL. */
  meta?: PageJsonMeta;
  /** Set for parsed-page JSON of a PDF: the page texts as given, whose word order the ingest repairs. */
  pdfPageTexts?: PageText[];
}

export function extensionOf(file: string): string {
  const base = file.slice(file.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot > 0 ? base.slice(dot).toLowerCase() : '';
}

function sha256(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(bytes: Uint8Array, file: string): string {
  try {
    // TextDecoder drops a leading BOM itself (ignoreBOM is false by default).
    return utf8.decode(bytes);
  } catch {
    throw createError('NOT_UTF8', file);
  }
}

let realPdfParser: Promise<PdfParser> | undefined;

/**
 * PDFs are parsed in worker threads (builder/parse/pdf-worker-pool.ts: a parse that pdf.js keeps
 * busy can be stopped), which start only when a PDF is met: a corpus of text pages never pays for them.
 */
function loadPdfParser(): Promise<PdfParser> {
  realPdfParser ??= import('../parse/pdf-worker-pool.ts').then((module) => module.pdfWorkerPool.parse);
  return realPdfParser;
}

async function parsePdfFile(bytes: Uint8Array, file: string, parsePdf: PdfParser | undefined, signal?: AbortSignal): Promise<ParsedPage[]> {
  try {
    return await (parsePdf ?? (await loadPdfParser()))(bytes, file, { signal });
  } catch (error) {
    if (isHarelError(error)) throw error;
    throw createError('PDF_UNREADABLE', file, error instanceof Error ? error.message : String(error));
  }
}

export async function parseFile(bytes: Uint8Array, file: string, options: { parsePdf?: PdfParser; signal?: AbortSignal } = {}): Promise<ParsedFile> {
  const extension = extensionOf(file);
  const contentHash = sha256(bytes);
  switch (extension) {
    case '.pdf':
      return { kind: 'pdf', pages: await parsePdfFile(bytes, file, options.parsePdf, options.signal), contentHash };
    case '.html':
    case '.htm':
    case '.aspx': {
      const { kind, pages } = parseWebFile(decodeUtf8(bytes, file), file);
      return { kind, pages, contentHash };
    }
    case '.md':
    case '.markdown':
      // Line by line with pauses: a large file must not hold off Ctrl-C (widget/core/steps.ts).
      return { kind: 'md', pages: await runSteps(parseMarkdownSteps(decodeUtf8(bytes, file), file), options.signal), contentHash };
    case '.txt':
      return { kind: 'txt', pages: await runSteps(parseTextSteps(decodeUtf8(bytes, file), file), options.signal), contentHash };
    case '.json': {
      let json: unknown;
      try {
        json = JSON.parse(decodeUtf8(bytes, file));
      } catch (error) {
        if (isHarelError(error)) throw error;
        throw createError('INVALID_JSON', file, error instanceof Error ? error.message : String(error));
      }
      const { meta, pages, text, pageTexts } = parsePageJson(json, file);
      // The same text under two names is one document, whatever the JSON's other fields say.
      return { kind: meta.kind, pages, contentHash: sha256(text), meta, ...(meta.kind === 'pdf' ? { pdfPageTexts: pageTexts } : {}) };
    }
    default:
      throw createError('UNSUPPORTED_EXTENSION', file);
  }
}
