/**
 * The ingest step: input folders → parsed documents, with every file that could not be used
 * reported (code + sentence) rather than failing the build. Output order is the sorted walk order,
 * so rebuilds are deterministic whatever the parse concurrency.
 *
 * Every document passes two checks here, whatever its format: its text, title and domain lose
 * their bidi embeddings, overrides and isolates (core/bidi-controls.ts: text must display in the
 * order it is stored), and its URL, from a page JSON, a hand-written or a crawler's manifest, must
 * pass the URL policy (core/url-policy.ts: http(s) or relative). A URL that does not is dropped,
 * the document is kept with `url: null`, and the drop is reported in `warnings`.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createError, isHarelError, throwIfAborted, type ErrorCode } from '../errors.ts';
import { pagesWithoutBidiControls, stripBidiControls } from '../../widget/core/bidi-controls.ts';
import type { ParsedDocument, ParsedPage, WorkOptions } from '../../widget/core/schema.ts';
import { detectLang } from '../../widget/core/tokenizer/index.ts';
import { checkSourceUrl } from '../../widget/core/url-policy.ts';
import { deriveTitle } from '../../widget/core/chunk/title.ts';
import { MANIFEST_NAME, parseManifest, type Manifest } from './manifest.ts';
import { parseFile, type ParsedFile, type PdfParser } from './parse-file.ts';
import { listFiles } from './walk.ts';
import { repairReadingOrder, type ReadingOrderStats } from './reading-order.ts';
import { pause } from '../../widget/core/steps.ts';

export type { PdfParser };

export interface SkippedFile {
  /** Root-relative path of the input (for a duplicate: its citation key). */
  file: string;
  code: ErrorCode;
  /** The registry's sentence for the code. */
  reason: string;
  /** For duplicates: the citation key of the document that was kept. */
  duplicateOf?: string;
}

/** Something changed in a document that was kept: a URL the policy dropped. */
export interface IngestWarning {
  /** The document's citation key. */
  file: string;
  /** One sentence for the build's output, naming the value and the reason. */
  message: string;
}

export interface IngestResult {
  documents: ParsedDocument[];
  skipped: SkippedFile[];
  duplicates: SkippedFile[];
  /** URLs dropped by the URL policy, one per document. */
  warnings: IngestWarning[];
  /** Lines of pre-parsed PDFs read, and how many were put back in reading order. */
  readingOrder: ReadingOrderStats;
}

export interface IngestOptions extends WorkOptions {
  /** Replaces `builder/parse/pdf.ts`'s parser (tests). */
  parsePdf?: PdfParser;
  /**
   * Drop documents whose content repeats an earlier one (default true). The shared Harel corpus
   * lists the same form under several domains; evaluation against its questions may need every
   * copy kept, since the questions cite them by their own names.
   */
  dedupe?: boolean;
  /** Per-file parse limit in ms (default FILE_TIMEOUT_MS, 30 s): a file over it is skipped as PARSE_TIMEOUT. */
  fileTimeoutMs?: number;
  /** Put pre-parsed PDF text back in reading order (builder/ingest/reading-order.ts); default false. */
  readingOrder?: boolean;
}

interface Source {
  input: string;
  root: string;
  relative: string;
  manifest: Manifest | null;
}

type Outcome = { source: Source; parsed: ParsedFile } | { source: Source; error: SkippedFile };

const PARSE_CONCURRENCY = 2;

/** Maps with at most `limit` calls in flight; results keep the input order. */
async function mapOrdered<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      results[index] = await fn(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

async function readManifestAt(root: string, skipped: SkippedFile[]): Promise<Manifest | null> {
  const text = await readFile(join(root, MANIFEST_NAME), 'utf8').catch(() => null);
  if (text === null) return null;
  try {
    return parseManifest(text, MANIFEST_NAME);
  } catch (error) {
    if (!isHarelError(error)) throw error;
    skipped.push({ file: MANIFEST_NAME, code: error.code, reason: error.message });
    return null;
  }
}

async function collectSources(inputDirs: readonly string[], skipped: SkippedFile[]): Promise<Source[]> {
  const sources: Source[] = [];
  for (const input of inputDirs) {
    const info = await stat(input).catch(() => null);
    if (!info) throw createError('INPUT_NOT_FOUND', input);
    if (info.isFile()) {
      // A single file: its own folder is the root, so its key is its name and its domain `general`.
      sources.push({ input, root: dirname(input), relative: basename(input), manifest: null });
      continue;
    }
    const manifest = await readManifestAt(input, skipped);
    for (const relative of await listFiles(input)) {
      if (relative === MANIFEST_NAME) continue;
      sources.push({ input, root: input, relative, manifest });
    }
  }
  return sources;
}

/** A value shown in a warning: one line, bidi and control characters visible as escapes, bounded. */
function shownValue(value: string): string {
  const escaped = JSON.stringify(value.length > 120 ? `${value.slice(0, 120)}…` : value);
  return escaped.replace(/[\u007F-\u009F\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF]/g, (c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`);
}

/**
 * The document's URL under the policy: the page JSON's own, else the manifest's. A dropped one
 * counts as absent (the manifest's may still serve) and is reported.
 */
function documentUrl(file: string, candidates: { value: string | null | undefined; from: string }[], warnings: IngestWarning[]): string | null {
  for (const { value, from } of candidates) {
    if (value === null || value === undefined || value.trim() === '') continue;
    const check = checkSourceUrl(value);
    if (check.ok) return check.url;
    warnings.push({ file, message: `${file}: URL ${shownValue(value)} from ${from} dropped (${check.reason}); the document is indexed without a link` });
  }
  return null;
}

function pageText(pages: readonly ParsedPage[]): string {
  return pages.map((p) => p.blocks.map((b) => b.text).join('\n')).join('\n');
}

/** Input folders → documents, skipped files and duplicates. Throws only when nothing is usable. */
/** The skipped files, one line each, for an error that has no summary to point to. */
export function skippedList(skipped: readonly SkippedFile[]): string {
  if (skipped.length === 0) return '';
  const shown = skipped
    .slice(0, 20)
    .map((s) => `\n  - [${s.code}] ${s.reason}`)
    .join('');
  return `Every file was skipped:${shown}${skipped.length > 20 ? `\n  … and ${skipped.length - 20} more` : ''}`;
}

/** How long one file may take to parse before it is skipped (PARSE_TIMEOUT). */
export const FILE_TIMEOUT_MS = 30_000;

/**
 * Parses one file, stopped after `timeoutMs`: a PDF's worker thread is terminated
 * (builder/parse/pdf-worker-pool.ts), the parsers that pace themselves (Markdown, text) see the
 * stop through their signal and end; one that does neither (an injected PDF parser) is left behind
 * and the file is skipped all the same.
 */
async function parseWithin(bytes: Uint8Array, file: string, options: { parsePdf?: PdfParser; signal?: AbortSignal }, timeoutMs: number): Promise<ParsedFile> {
  const timer = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, timer.signal]) : timer.signal;
  let handle: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    handle = setTimeout(() => {
      timer.abort();
      reject(createError('PARSE_TIMEOUT', file, Math.round(timeoutMs) / 1000));
    }, timeoutMs);
  });
  try {
    return await Promise.race([parseFile(bytes, file, { ...options, signal }), timedOut]);
  } catch (error) {
    if (timer.signal.aborted && !options.signal?.aborted) throw createError('PARSE_TIMEOUT', file, Math.round(timeoutMs) / 1000);
    throw error;
  } finally {
    clearTimeout(handle);
  }
}

export async function ingest(inputDirs: string[], options: IngestOptions = {}): Promise<IngestResult> {
  const { signal, onProgress, parsePdf, dedupe = true, fileTimeoutMs = FILE_TIMEOUT_MS, readingOrder: repairOrder = false } = options;
  throwIfAborted(signal);
  const skipped: SkippedFile[] = [];
  const sources = await collectSources(inputDirs, skipped);
  const total = sources.length;
  let done = 0;
  onProgress?.({ step: 'parse', done, total });

  const outcomes = await mapOrdered(sources, PARSE_CONCURRENCY, async (source): Promise<Outcome> => {
    throwIfAborted(signal);
    const bytes = new Uint8Array(await readFile(join(source.root, source.relative)));
    let outcome: Outcome;
    try {
      outcome = { source, parsed: await parseWithin(bytes, source.relative, { parsePdf, signal }, fileTimeoutMs) };
    } catch (error) {
      if (isHarelError(error, 'ABORTED') && signal?.aborted) throw error;
      // Whatever a parser throws skips the file with a code (found by fuzzing documents: docs/reliability.md); only a stop ends the build.
      const failure = isHarelError(error) ? error : createError('PARSE_FAILED', source.relative, error instanceof Error ? error.message : String(error));
      outcome = { source, error: { file: source.relative, code: failure.code, reason: failure.message } };
    }
    onProgress?.({ step: 'parse', done: ++done, total, detail: source.relative });
    return outcome;
  });
  throwIfAborted(signal);
  const readingOrder = repairOrder ? repairReadingOrder(outcomes.flatMap((outcome) => ('parsed' in outcome ? [outcome.parsed] : []))) : { lines: 0, reordered: 0 };

  const documents: ParsedDocument[] = [];
  const duplicates: SkippedFile[] = [];
  const warnings: IngestWarning[] = [];
  const byKey = new Map<string, string>();
  const byContent = new Map<string, string>();
  for (const outcome of outcomes) {
    await pause(signal);
    if ('error' in outcome) {
      skipped.push(outcome.error);
      continue;
    }
    const { source, parsed } = outcome;
    const file = parsed.meta?.file ?? source.relative;
    const pages = pagesWithoutBidiControls(parsed.pages);
    const text = pageText(pages);
    if (text.trim() === '') {
      skipped.push({ file: source.relative, code: 'EMPTY_DOCUMENT', reason: createError('EMPTY_DOCUMENT', source.relative).message });
      continue;
    }
    const where = `${source.input.replace(/[\\/]+$/, '')}/${source.relative}`;
    const sameKey = byKey.get(file);
    if (sameKey !== undefined) {
      duplicates.push({ file, code: 'DUPLICATE_KEY', reason: createError('DUPLICATE_KEY', file, sameKey).message, duplicateOf: file });
      continue;
    }
    const sameContent = dedupe ? byContent.get(parsed.contentHash) : undefined;
    if (sameContent !== undefined) {
      duplicates.push({ file, code: 'DUPLICATE_FILE', reason: createError('DUPLICATE_FILE', file, sameContent).message, duplicateOf: sameContent });
      continue;
    }
    byKey.set(file, where);
    if (!byContent.has(parsed.contentHash)) byContent.set(parsed.contentHash, file);

    const entry = source.manifest?.get(source.relative) ?? (parsed.meta ? source.manifest?.get(parsed.meta.file) : undefined);
    const firstFolder = source.relative.includes('/') ? source.relative.slice(0, source.relative.indexOf('/')) : 'general';
    const url = documentUrl(
      file,
      [
        { value: parsed.meta?.url, from: source.relative },
        { value: entry?.url, from: `${source.input.replace(/[\\/]+$/, '')}/${MANIFEST_NAME}` },
      ],
      warnings,
    );
    documents.push({
      file,
      url,
      domain: stripBidiControls(parsed.meta?.domain ?? entry?.domain ?? firstFolder),
      lang: detectLang(text),
      title: stripBidiControls(entry?.title ?? deriveTitle(pages, file)),
      kind: parsed.kind,
      pages,
    });
  }

  if (documents.length === 0) throw createError('NO_DOCUMENTS', inputDirs.join(', '), skippedList(skipped));
  return { documents, skipped, duplicates, warnings, readingOrder };
}
