/**
 * Writes one index build as a folder of static files. Everything goes to a temporary sibling
 * folder first and is renamed into place at the end, so an interrupted build never leaves a
 * half-written index where a reader (or a CDN sync) could pick it up; swap.ts says what holds
 * when the renames themselves are interrupted.
 */
import { createHash } from 'node:crypto';
import { mkdir, open, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { gzip as gzipCallback, gzipSync } from 'node:zlib';
import { throwIfAborted } from '../errors.ts';
import { encodeJson } from '../../widget/core/format/bytes.ts';
import { encodeBm25Files, type Bm25Bytes, type Bm25Contents } from '../../widget/core/format/bm25-file.ts';
import { chunkFragmentStarts, encodeChunkStore } from '../../widget/core/format/chunk-store.ts';
import {
  DEFAULT_RETRIEVAL,
  fragmentKey,
  INDEX_FORMAT,
  INDEX_FORMAT_VERSION,
  type EmbedderInfo,
  type FragmentKind,
  type IndexFileEntry,
  type IndexFileKey,
  type IndexFileRole,
  type IndexManifest,
  type RetrievalDefaults,
} from '../../widget/core/format/manifest.ts';
import { encodeVectorTable, type VectorTable } from '../../widget/core/format/vector-file.ts';
import type { MinedLexicon } from '../../widget/core/retrieval/mined-lexicon.ts';
import type { RouterModel } from '../../widget/core/retrieval/route.ts';
import { TOKENIZER_VERSION } from '../../widget/core/tokenizer/index.ts';
import type { Chunk, IndexedDocument, WorkOptions } from '../../widget/core/schema.ts';
import type { SiteInfo } from '../../widget/core/format/manifest.ts';
import { pause } from '../../widget/core/steps.ts';
import { BUILDER_VERSION } from '../version.ts';
import { own, recoverOut, release, swapInto, tempName } from './swap.ts';

export interface IndexContents {
  documents: IndexedDocument[];
  chunks: Chunk[];
  /** The BM25 postings, compiled by widget/core/format/compile-bm25.ts. */
  bm25: Bm25Contents;
  vectors: VectorTable | null;
  embedder: EmbedderInfo | null;
  router: RouterModel | null;
  lexicon?: MinedLexicon | null;
  retrieval?: Partial<RetrievalDefaults>;
  /** The site's name, contacts and starters (`build --site`, checked by site-config.ts); omitted from the manifest when null. */
  site?: SiteInfo | null;
  /** How the build is split into fragments (default: `planFragments(chunks, 'auto')`). */
  fragments?: FragmentPlan;
}

/** How many term fragments a build has, and how many chunks (at least) a chunk fragment holds. */
export interface FragmentPlan {
  terms: number;
  chunksPerFragment: number;
}

/** `build --fragments`: the builder's choice by size, one fragment of each kind, or split whatever the size. */
export type FragmentMode = 'auto' | 'whole' | 'split';

/**
 * Below this many chunks a build is one fragment of each kind: a visitor downloads it whole
 * before the first answer, as format 2 did (5 MB at the Harel corpus's 15k chunks), and a warm
 * start reads a handful of files. Above it the split pays: the whole index grows past what a
 * phone should fetch before it answers (docs/benchmarks.md: 62 MB at 200k chunks, BM25 alone).
 * A provisional line, until the bench measures the first answer of both at each size.
 */
export const FRAGMENT_MIN_CHUNKS = 30_000;
/** Chunks per chunk fragment when split: about 100 KB of gzip text (docs/benchmarks.md). */
const CHUNKS_PER_FRAGMENT = 500;
/** Chunks per term fragment when split: 250 term fragments at 200k chunks, about 72 KB each. */
const CHUNKS_PER_TERM_FRAGMENT = 800;
const MAX_TERM_FRAGMENTS = 4096;

export function planFragments(chunks: number, mode: FragmentMode = 'auto'): FragmentPlan {
  const split = mode === 'split' || (mode === 'auto' && chunks >= FRAGMENT_MIN_CHUNKS);
  if (!split) return { terms: 1, chunksPerFragment: Math.max(1, chunks) };
  return { terms: Math.min(MAX_TERM_FRAGMENTS, Math.max(1, Math.ceil(chunks / CHUNKS_PER_TERM_FRAGMENT))), chunksPerFragment: CHUNKS_PER_FRAGMENT };
}

const FILE_NAMES: Record<IndexFileRole, string> = {
  documents: 'documents.json.gz',
  bm25: 'bm25.bin.gz',
  vectors: 'vectors.bin.gz',
  router: 'router.json.gz',
  lexicon: 'lexicon.json.gz',
};

const fragmentFileName = (kind: FragmentKind, i: number) => `${kind}-${i}.bin.gz`;

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function countPages(documents: readonly IndexedDocument[]): number {
  return documents.reduce((n, d) => n + d.pageCount, 0);
}

export function buildManifest(contents: IndexContents, files: Partial<Record<IndexFileKey, IndexFileEntry>>, fragments: Record<FragmentKind, number>, createdAt: Date): IndexManifest {
  const byDomain: IndexManifest['counts']['byDomain'] = {};
  const byLang: IndexManifest['counts']['byLang'] = {};
  for (const doc of contents.documents) {
    (byDomain[doc.domain] ??= { documents: 0, chunks: 0 }).documents++;
    (byLang[doc.lang] ??= { documents: 0, chunks: 0 }).documents++;
  }
  for (const chunk of contents.chunks) {
    const doc = contents.documents[chunk.doc];
    byDomain[doc.domain].chunks++;
    byLang[doc.lang]!.chunks++;
  }
  // A changed site block is a new build: a reader that keeps builds by id would keep the old one.
  const buildId = createHash('sha256')
    .update(
      Object.values(files)
        .map((f) => f!.sha256)
        .join(',') + (contents.site ? `,site:${JSON.stringify(contents.site)}` : ''),
    )
    .digest('hex')
    .slice(0, 16);
  return {
    format: INDEX_FORMAT,
    formatVersion: INDEX_FORMAT_VERSION,
    buildId,
    createdAt: createdAt.toISOString(),
    builderVersion: BUILDER_VERSION,
    tokenizerVersion: TOKENIZER_VERSION,
    embedder: contents.embedder,
    counts: {
      documents: contents.documents.length,
      chunks: contents.chunks.length,
      pages: countPages(contents.documents),
      byDomain,
      byLang,
    },
    retrieval: { ...DEFAULT_RETRIEVAL, ...contents.retrieval },
    fragments,
    files,
    ...(contents.site ? { site: contents.site } : {}),
  };
}

/** One file of a build: its key in the manifest, its name, and how to encode it. */
interface BuildFile {
  key: IndexFileKey;
  path: string;
  encode: () => Uint8Array;
}

/** Every file of the build in the order they are written, and how many fragments of each kind. */
function buildFiles(contents: IndexContents): { files: BuildFile[]; fragments: Record<FragmentKind, number> } {
  const plan = contents.fragments ?? planFragments(contents.chunks.length);
  const role = (key: IndexFileRole, encode: () => Uint8Array): BuildFile => ({ key, path: FILE_NAMES[key], encode });
  const starts = chunkFragmentStarts(contents.chunks, plan.chunksPerFragment);
  let bm25: Bm25Bytes | null = null;
  // The postings are split once, for the base and every term fragment.
  const bm25Bytes = () => (bm25 ??= encodeBm25Files(contents.bm25, plan.terms, starts));
  const files: BuildFile[] = [role('documents', () => encodeJson(contents.documents))];
  starts.forEach((start, i) => {
    const end = starts[i + 1] ?? contents.chunks.length;
    files.push({ key: fragmentKey('chunks', i), path: fragmentFileName('chunks', i), encode: () => encodeChunkStore(contents.chunks.slice(start, end), start) });
  });
  files.push(role('bm25', () => bm25Bytes().base));
  for (let i = 0; i < plan.terms; i++) {
    files.push({ key: fragmentKey('terms', i), path: fragmentFileName('terms', i), encode: () => bm25Bytes().terms[i] });
  }
  if (contents.vectors) files.push(role('vectors', () => encodeVectorTable(contents.vectors!)));
  if (contents.router) files.push(role('router', () => encodeJson(contents.router)));
  if (contents.lexicon) files.push(role('lexicon', () => encodeJson(contents.lexicon)));
  return { files, fragments: { terms: plan.terms, chunks: starts.length } };
}

/** Encodes every file of the build; returns the bytes to write, keyed by their key in the manifest. */
export function encodeIndexFiles(contents: IndexContents): Map<IndexFileKey, { raw: Uint8Array; stored: Uint8Array }> {
  const out = new Map<IndexFileKey, { raw: Uint8Array; stored: Uint8Array }>();
  for (const file of buildFiles(contents).files) {
    const raw = file.encode();
    out.set(file.key, { raw, stored: gzipSync(raw, { level: 9 }) });
  }
  return out;
}

export interface WriteOptions extends WorkOptions {
  /** Says what was repaired beside `outDir` after an interrupted build (see swap.ts). */
  log?: (message: string) => void;
}

const gzip = promisify(gzipCallback);

/** Writes `bytes` to `path` and syncs them to disk: the swap must never put unwritten files in place. */
async function writeDurably(path: string, bytes: Uint8Array | string): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Writes the build into a hidden sibling of `outDir`, then swaps it in (builder/write/swap.ts says
 * what is guaranteed when that is interrupted). The signal is honoured until the swap: a cancelled
 * write deletes its folder and leaves `outDir` as it was. Files are compressed off the main thread
 * (zlib's thread pool), so Ctrl-C is seen while they are.
 */
export async function writeIndex(outDir: string, contents: IndexContents, now = new Date(), options: WriteOptions = {}): Promise<IndexManifest> {
  const { signal, onProgress } = options;
  const target = resolve(outDir);
  await recoverOut(target, options.log);
  throwIfAborted(signal);
  const temp = tempName(target, now);
  own(temp);
  try {
    await rm(temp, { recursive: true, force: true });
    await mkdir(temp, { recursive: true });
    const { files: toWrite, fragments } = buildFiles(contents);
    const files: Partial<Record<IndexFileKey, IndexFileEntry>> = {};
    const total = toWrite.length + 1;
    onProgress?.({ step: 'write', done: 0, total });
    for (const [i, file] of toWrite.entries()) {
      await pause(signal);
      const raw = file.encode();
      await pause(signal);
      const stored = new Uint8Array(await gzip(raw, { level: 9 }));
      throwIfAborted(signal);
      await writeDurably(join(temp, file.path), stored);
      files[file.key] = { path: file.path, encoding: 'gzip', bytes: stored.byteLength, rawBytes: raw.byteLength, sha256: sha256(stored) };
      onProgress?.({ step: 'write', done: i + 1, total, detail: file.path });
    }
    const manifest = buildManifest(contents, files, fragments, now);
    await writeDurably(join(temp, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    // The last point where a cancel is honoured: from here the new build goes in.
    throwIfAborted(signal);
    const old = swapInto(temp, target);
    release(temp);
    onProgress?.({ step: 'write', done: total, total });
    if (old) {
      // Left behind only if this fails or the process dies first; recoverOut deletes it then.
      await rm(old, { recursive: true, force: true }).catch(() => undefined);
      release(old);
    }
    return manifest;
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    release(temp);
    throw error;
  }
}
