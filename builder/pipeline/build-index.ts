/**
 * The build pipeline: ingest → chunk → embed (cached) → route model → BM25 → write.
 * Each step reports progress and honours the abort signal: the long CPU-bound steps run with
 * pauses (widget/core/steps.ts) so that Ctrl-C is seen within a few tens of milliseconds, and a cancelled
 * build writes nothing to --out. Bad input never stops the build.
 */
import type { ReadingOrderStats } from '../ingest/reading-order.ts';
import { passageText } from '../../widget/core/embedding/passage-text.ts';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { createError, throwIfAborted } from '../errors.ts';
import { packVectors } from '../../widget/core/format/int8.ts';
import type { EmbedderInfo, IndexManifest, SiteInfo } from '../../widget/core/format/manifest.ts';
import { compileBm25Async } from '../../widget/core/format/compile-bm25.ts';
import { readSections } from '../../widget/core/format/sections.ts';
import { trainRouterSteps } from '../../widget/core/retrieval/route-model.ts';
import type { Chunk, IndexedDocument, ParsedDocument, WorkOptions } from '../../widget/core/schema.ts';
import { DEFAULT_RETRIEVAL, parseFragmentKey, type RetrievalDefaults } from '../../widget/core/format/manifest.ts';
import { chunkDocumentSteps } from '../../widget/core/chunk/index.ts';
import { FIXTURE_EMBEDDER, PASSAGE_PREFIX, QUERY_PREFIX } from '../embed/defaults.ts';
import type { Embedder } from '../embed/embedder.ts';
import { configuredQueryDtype } from '../embed/local-model.ts';
import { ingestInputs, type SkippedFile } from './ingest-inputs.ts';
import { skippedList, type IngestWarning } from '../ingest/index.ts';
import { planFragments, writeIndex, type FragmentMode } from '../write/write-index.ts';
import { recoverOut } from '../write/swap.ts';
import { twinGroupsSteps } from '../twins/twin-groups.ts';
import { alignEditionsSteps, editionRefs } from '../twins/editions.ts';
import { mineLexiconSteps } from '../lexicon/mine-lexicon.ts';
import { pause, runSteps } from '../../widget/core/steps.ts';

export interface BuildOptions extends WorkOptions {
  inputs: string[];
  outDir: string;
  embed: boolean;
  embedder: string;
  /** The model that embeds questions, when not `embedder` (manifest embedder.queryModel). */
  queryModel?: string;
  modelDir?: string;
  allowRemote: boolean;
  /** The model's ONNX file; undefined: what the model folder's config.json names, else 'q8'. */
  dtype?: 'q8' | 'q4' | 'fp32';
  /** Threads that embed passages; default one per core (builder/embed/embedder-pool.ts). */
  embedThreads?: number;
  maxTokens: number;
  overlap: number;
  cacheDir?: string;
  bm25Weight?: number;
  termMatch?: RetrievalDefaults['termMatch'];
  /** Per-file parse limit in ms (`--file-timeout`); undefined: the ingest step's 30 s. */
  fileTimeoutMs?: number;
  /** Put pre-parsed PDF text back in reading order (`--reading-order`); off by default until the answers gain from it (docs/evaluation.md). */
  readingOrder?: boolean;
  /** The manifest's `site` block (name, contacts, starters), from `--site`; none by default. */
  site?: SiteInfo | null;
  /** How the index is split into fragments (`--fragments`); default 'auto': by its size (write-index.ts planFragments). */
  fragments?: FragmentMode;
  /** Messages for the user (warnings, what was skipped), printed without tearing progress bars. */
  log?: (message: string) => void;
  /** What was repaired after an interrupted build (builder/write/swap.ts): shown even with --quiet. Default: `log`. */
  notice?: (message: string) => void;
}

export interface BuildSummary {
  manifest: IndexManifest;
  bytes: number;
  ms: number;
  skipped: SkippedFile[];
  /** Documents kept with a change (a link dropped by the URL policy). */
  warnings: IngestWarning[];
  duplicates: SkippedFile[];
  /** Lines of pre-parsed PDFs read, and how many were put back in reading order. */
  readingOrder: ReadingOrderStats;
  diff: { added: number; removed: number; kept: number };
  embedded: number;
  embedCacheHits: number;
}

function toIndexedDocument(doc: ParsedDocument): IndexedDocument {
  return { file: doc.file, url: doc.url, domain: doc.domain, lang: doc.lang, title: doc.title, kind: doc.kind, pageCount: doc.pages.length };
}

async function previousChunkIds(outDir: string): Promise<Set<string> | null> {
  try {
    const manifest = JSON.parse(await readFile(join(outDir, 'manifest.json'), 'utf8')) as { files: Record<string, { path: string }> };
    // Format 3's chunk fragments (chunks-0, chunks-1, …) or the one chunk store of formats 1 and 2.
    const paths = Object.entries(manifest.files)
      .filter(([key]) => key === 'chunks' || parseFragmentKey(key)?.kind === 'chunks')
      .map(([, entry]) => entry.path);
    if (paths.length === 0) return null;
    const ids = new Set<string>();
    for (const path of paths) {
      const raw = new Uint8Array(gunzipSync(await readFile(join(outDir, path))));
      // A format-1 build (chunks.json.gz) still says which chunks it had: the change summary reads any format.
      const header = path.endsWith('.json.gz')
        ? (JSON.parse(new TextDecoder().decode(raw)) as { ids: string[] })
        : readSections<{ ids: string[] }>(raw, new TextDecoder().decode(raw.subarray(0, 4)), path).header;
      for (const id of header.ids) ids.add(id);
    }
    return ids;
  } catch {
    return null;
  }
}

function routerInput(docs: readonly ParsedDocument[]) {
  return docs.map((d) => ({
    domain: d.domain,
    title: d.title,
    headings: d.pages.flatMap((p) => p.blocks.filter((b) => b.type === 'heading').map((b) => b.text)),
    text: d.pages.flatMap((p) => p.blocks.map((b) => b.text)).join('\n'),
  }));
}

async function embedChunks(
  embedder: Embedder,
  chunks: readonly Chunk[],
  documents: readonly IndexedDocument[],
  cacheDir: string,
  options: WorkOptions,
): Promise<{ vectors: Float32Array[]; embedded: number; hits: number; discarded: string | null }> {
  const { embedWithCache } = await import('../embed/embed-cached.ts');
  const items = chunks.map((c) => {
    const text = passageText(c, documents[c.doc]);
    return { key: createHash('sha1').update(text).digest('hex'), text };
  });
  return embedWithCache(embedder, items, { cacheDir, ...options });
}

/** A parsed page's text, its blocks joined: what twins and editions compare. */
const pageText = (page: ParsedDocument['pages'][number]): string => page.blocks.map((b) => b.text).join('\n');

/** Marks near-identical pages and chunks with twin-group ids (see builder/twins). */
async function markTwins(parsed: readonly ParsedDocument[], chunks: Chunk[], options: WorkOptions): Promise<void> {
  const pageKeys: string[] = [];
  const pageTexts: string[] = [];
  parsed.forEach((doc, d) => {
    for (const page of doc.pages) {
      pageKeys.push(`${d}:${page.page}`);
      pageTexts.push(pageText(page));
    }
  });
  const pageGroups = await runSteps(twinGroupsSteps(pageTexts), options.signal);
  options.onProgress?.({ step: 'twins', done: 1, total: 3 });
  const pageGroup = new Map(pageKeys.map((k, i) => [k, pageGroups[i]]));
  const chunkGroups = await runSteps(twinGroupsSteps(chunks.map((c) => c.text)), options.signal);
  chunks.forEach((chunk, i) => {
    const pg = pageGroup.get(`${chunk.doc}:${chunk.page}`) ?? -1;
    if (pg >= 0) chunk.pageTwin = pg;
    if (chunkGroups[i] >= 0) chunk.twin = chunkGroups[i];
  });
}

/** Links each other-language edition with its Hebrew edition, page to page (see builder/twins/editions.ts). */
async function markEditions(parsed: readonly ParsedDocument[], documents: IndexedDocument[], signal?: AbortSignal): Promise<void> {
  const pages = parsed.map((doc) => ({ domain: doc.domain, pages: doc.pages.map((p) => ({ page: p.page, text: pageText(p) })) }));
  for (const [doc, refs] of editionRefs(await runSteps(alignEditionsSteps(pages), signal))) documents[doc].editions = refs;
}

export async function buildIndex(options: BuildOptions): Promise<BuildSummary> {
  const started = performance.now();
  const { signal, onProgress, log = () => {} } = options;
  const notice = options.notice ?? log;
  const outDir = resolve(options.outDir);
  // A build stopped by kill -9 or a crash while it swapped folders may have left --out missing:
  // put the previous build back (and clean up) before anything reads it (builder/write/swap.ts).
  await recoverOut(outDir, notice);

  const ingested = await ingestInputs(options.inputs, { signal, onProgress, fileTimeoutMs: options.fileTimeoutMs, readingOrder: options.readingOrder });
  throwIfAborted(signal);
  const parsed = ingested.documents;
  if (parsed.length === 0) throw createError('NO_DOCUMENTS', options.inputs.join(', '), skippedList(ingested.skipped));

  let embedder: Embedder | null = null;
  if (options.embed) {
    // Loaded on demand: transformers.js and onnxruntime take seconds to import, and a BM25-only
    // build needs neither.
    const { loadEmbedderPool } = await import('../embed/embedder-pool.ts');
    embedder = await loadEmbedderPool({
      workers: options.embedThreads,
      model: options.embedder,
      modelDir: options.modelDir,
      allowRemote: options.allowRemote,
      dtype: options.dtype,
      prefix: PASSAGE_PREFIX,
      signal,
      onProgress,
    });
  }

  try {
    const countTokens = embedder ? (t: string) => embedder!.countTokens(t) : undefined;
    const documents = parsed.map(toIndexedDocument);
    const byFile = new Map(documents.map((d) => [d.file, d]));
    for (const dup of ingested.duplicates) {
      const kept = dup.duplicateOf ? byFile.get(dup.duplicateOf) : undefined;
      if (kept && dup.file !== kept.file) (kept.aliases ??= []).push(dup.file);
    }
    const chunks: Chunk[] = [];
    const seen = new Set<string>();
    const chunking = { maxTokens: options.maxTokens, overlap: options.overlap, countTokens };
    onProgress?.({ step: 'chunk', done: 0, total: parsed.length });
    for (let i = 0; i < parsed.length; i++) {
      await pause(signal);
      for (const chunk of await runSteps(chunkDocumentSteps(parsed[i], i, chunking), signal)) {
        // Identical passages in two documents keep one id per index (ids are content hashes).
        if (seen.has(chunk.id)) continue;
        seen.add(chunk.id);
        // A top heading that repeats the document title (a Markdown or HTML h1) says nothing the
        // document does not already carry: drop it from the path shown in citations.
        const path = chunk.sectionPath[0] === documents[i].title ? chunk.sectionPath.slice(1) : chunk.sectionPath;
        chunks.push(path === chunk.sectionPath ? chunk : { ...chunk, sectionPath: path });
      }
      onProgress?.({ step: 'chunk', done: i + 1, total: parsed.length, detail: parsed[i].file });
    }
    onProgress?.({ step: 'twins', done: 0, total: 3 });
    await markTwins(parsed, chunks, { signal, onProgress });
    onProgress?.({ step: 'twins', done: 2, total: 3 });
    await markEditions(parsed, documents, signal);
    onProgress?.({ step: 'twins', done: 3, total: 3 });
    const chunked = new Set(chunks.map((c) => c.doc));
    const chunkless = documents.filter((_, i) => !chunked.has(i));
    for (const d of chunkless) log(`warning: ${d.file} produced no chunks (only noise or boilerplate text)`);

    let vectors = null;
    let embedderInfo: EmbedderInfo | null = null;
    let embedded = 0;
    let embedCacheHits = 0;
    if (embedder) {
      const cacheDir = options.cacheDir ?? join(dirname(outDir), '.harel-cache');
      const result = await embedChunks(embedder, chunks, documents, cacheDir, { signal, onProgress });
      embedded = result.embedded;
      embedCacheHits = result.hits;
      if (result.discarded) log(`embedding cache not reused: ${result.discarded}`);
      const packed = packVectors(result.vectors);
      const queryDtype = await configuredQueryDtype(options.modelDir, embedder.id);
      vectors = { count: chunks.length, dim: embedder.dimensions, scales: packed.scales, data: packed.data };
      embedderInfo = {
        id: embedder.id,
        dimensions: embedder.dimensions,
        quantization: 'int8-per-vector-scale',
        passagePrefix: PASSAGE_PREFIX,
        queryPrefix: QUERY_PREFIX,
        fixture: embedder.id === FIXTURE_EMBEDDER,
        // Passages are embedded by transformers.js, which reads no .q4w pair.
        dtype: embedder.dtype === 'q4f32' || embedder.dtype === 'q4i8' ? 'fp32' : embedder.dtype,
        ...(queryDtype && queryDtype !== embedder.dtype ? { queryDtype } : {}),
        // The question model chosen with --query-model (checked against this embedder by the command).
        ...(options.queryModel && options.queryModel !== embedder.id ? { queryModel: options.queryModel } : {}),
      };
    }

    onProgress?.({ step: 'lexicon', done: 0, total: 1 });
    const pages = parsed.flatMap((doc, d) => doc.pages.map((p) => ({ doc: d, text: p.blocks.map((b) => b.text).join('\n') })));
    const lexicon = await runSteps(
      mineLexiconSteps(
        pages,
        chunks.map((c) => c.text),
      ),
      signal,
    );
    onProgress?.({ step: 'lexicon', done: 1, total: 1 });

    onProgress?.({ step: 'route', done: 0, total: 1 });
    const router = await runSteps(trainRouterSteps(routerInput(parsed)), signal);
    onProgress?.({ step: 'route', done: 1, total: 1 });

    const retrieval: RetrievalDefaults = {
      ...DEFAULT_RETRIEVAL,
      ...(options.bm25Weight === undefined ? {} : { bm25Weight: options.bm25Weight }),
      ...(options.termMatch === undefined ? {} : { termMatch: options.termMatch }),
    };
    const bm25 = await compileBm25Async(chunks, documents, { signal, onProgress });

    const previous = await previousChunkIds(outDir);
    // Honours the signal until the new build is complete on disk, then swaps it in.
    const manifest = await writeIndex(
      outDir,
      {
        documents,
        chunks,
        bm25,
        vectors,
        embedder: embedderInfo,
        router,
        lexicon: lexicon.entries.length ? lexicon : null,
        retrieval,
        site: options.site ?? null,
        fragments: planFragments(chunks.length, options.fragments),
      },
      new Date(),
      { signal, onProgress, log: notice },
    );
    const bytes = Object.values(manifest.files).reduce((n, f) => n + f!.bytes, 0);
    const ids = new Set(chunks.map((c) => c.id));
    const kept = previous ? [...ids].filter((id) => previous.has(id)).length : 0;
    return {
      manifest,
      bytes,
      ms: performance.now() - started,
      skipped: ingested.skipped,
      warnings: ingested.warnings,
      duplicates: ingested.duplicates,
      readingOrder: ingested.readingOrder,
      diff: { added: ids.size - kept, removed: previous ? previous.size - kept : 0, kept },
      embedded,
      embedCacheHits,
    };
  } finally {
    await embedder?.dispose();
  }
}
