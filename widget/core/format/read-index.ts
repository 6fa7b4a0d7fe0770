/**
 * Reads an index build from any byte source (a folder in Node, HTTP or IndexedDB in a browser),
 * verifying each file's size and sha256 against the manifest before decoding it.
 */
import { createError, HarelError, throwIfAborted } from '../errors.ts';
import type { Chunk, IndexedDocument, WorkOptions } from '../schema.ts';
import { decodeJson, gunzip, sha256Hex } from './bytes.ts';
import { decodeChunkStore } from './chunk-store.ts';
import { fragmentKey, parseManifest, type IndexFileEntry, type IndexFileKey, type IndexFileRole, type IndexManifest } from './manifest.ts';
import { decodeVectorTable, type VectorTable } from './vector-file.ts';
import { Bm25File, decodeBm25Base } from './bm25-file.ts';
import { checkChunkFragment, checkChunksAgainstDocuments, checkDocuments, checkLocatorDocuments, checkRouter, checkVectors } from './validate.ts';
import type { RouterModel } from '../retrieval/route.ts';
import { parseMinedLexicon, type MinedLexicon } from '../retrieval/mined-lexicon.ts';

/** Where index files come from. Paths are relative to the index folder. */
export interface IndexFileSource {
  read(path: string, signal?: AbortSignal): Promise<Uint8Array>;
}

export interface LoadedIndex {
  manifest: IndexManifest;
  documents: IndexedDocument[];
  chunks: Chunk[];
  /** The BM25 postings, used in place. */
  bm25: Bm25File;
  vectors: VectorTable | null;
  router: RouterModel | null;
  /** Query-expansion equivalents mined from the corpus; absent in builds that predate it. */
  lexicon?: MinedLexicon | null;
}

export async function readManifest(source: IndexFileSource, signal?: AbortSignal): Promise<IndexManifest> {
  let bytes: Uint8Array;
  try {
    bytes = await source.read('manifest.json', signal);
  } catch (_error) {
    throw createError('INDEX_NOT_FOUND', 'manifest.json');
  }
  try {
    return parseManifest(decodeJson(bytes));
  } catch (error) {
    if (error instanceof SyntaxError) throw createError('INDEX_CORRUPT', 'manifest.json', error.message);
    throw error;
  }
}

/** Checks size and hash of a file's bytes as stored, then decompresses them. */
export async function verifyAndInflate(entry: IndexFileEntry, stored: Uint8Array): Promise<Uint8Array> {
  if (stored.byteLength !== entry.bytes) {
    throw createError('INDEX_INTEGRITY', entry.path, `expected ${entry.bytes} bytes, got ${stored.byteLength}`);
  }
  // The hash is computed off this thread (SubtleCrypto) while this one inflates, bounded by the
  // manifest's size: the two overlap, and a mismatch is reported as one whatever the inflating
  // made of the bytes.
  const inflating = gunzip(stored, entry.rawBytes);
  inflating.catch(() => undefined);
  const hash = await sha256Hex(stored);
  if (hash !== entry.sha256) throw createError('INDEX_INTEGRITY', entry.path, 'sha256 mismatch');
  let raw: Uint8Array;
  try {
    raw = await inflating;
  } catch (error) {
    throw createError('INDEX_CORRUPT', entry.path, error instanceof Error ? error.message : String(error));
  }
  if (raw.byteLength !== entry.rawBytes) throw createError('INDEX_CORRUPT', entry.path, `inflates to ${raw.byteLength} bytes, the manifest gives ${entry.rawBytes}`);
  return raw;
}

/**
 * The version of the structural checks `decodeIndexFiles` makes. A stored build records the one
 * its files passed when they were downloaded; raise it when the checks grow, so that builds
 * stored under a weaker version are walked again.
 */
export const STRUCTURE_CHECKS = 1;

export interface DecodeOptions {
  /**
   * These exact bytes passed this version's walk of the BM25 postings before (a build stored
   * after it was checked, its sha256 matched again on reading): the walk, linear in the file, is
   * not repeated. Lookups still check the bounds of what they read.
   */
  bm25Walked?: boolean;
  /**
   * The build is read by need (index-by-need.ts): `raw` holds no term or chunk fragment, they
   * come later; `chunks` is a sparse array filled as they do.
   */
  byNeed?: boolean;
}

/** Decodes vectors.bin and checks it against its build: the embedder's dimensions, one vector per chunk. */
export function decodeVectors(manifest: IndexManifest, bytes: Uint8Array, chunkCount: number): VectorTable {
  const path = manifest.files.vectors?.path ?? 'vectors';
  const vectors = decodeVectorTable(bytes, path);
  checkVectors(vectors, manifest.embedder?.dimensions, path);
  if (vectors.count !== chunkCount) throw createError('INDEX_CORRUPT', path, `${vectors.count} vectors for ${chunkCount} chunks`);
  return vectors;
}

/** The inflated files of a build, by their key in the manifest. */
export type InflatedFiles = Partial<Record<IndexFileKey, Uint8Array>>;

/**
 * Decodes chunk fragment `index`, checks it lies where the BM25 base places it, and puts its
 * chunks in place in `chunks` (the index's, as long as it has chunks); returns them. The caller
 * checks them against the documents: one fragment by need, all of them at once when whole.
 */
export function placeChunkFragment(chunks: Chunk[], index: number, bytes: Uint8Array, bm25: Bm25File, source: string): Chunk[] {
  const fragment = decodeChunkStore(bytes, source);
  checkChunkFragment(fragment, index, bm25, source);
  fragment.chunks.forEach((chunk, k) => (chunks[fragment.first + k] = chunk));
  return fragment.chunks;
}

/** The chunks of every chunk fragment, each where the BM25 base places it. */
function decodeChunks(manifest: IndexManifest, raw: InflatedFiles, bm25: Bm25File, documents: readonly IndexedDocument[]): Chunk[] {
  const chunks: Chunk[] = new Array(bm25.chunks);
  for (let i = 0; i < manifest.fragments.chunks; i++) {
    const key = fragmentKey('chunks', i);
    const path = manifest.files[key]?.path ?? key;
    const bytes = raw[key];
    if (!bytes) throw createError('INDEX_CORRUPT', path, 'file missing');
    placeChunkFragment(chunks, i, bytes, bm25, path);
  }
  // Once all are in, so that ids are checked unique across the build, not only within a fragment.
  checkChunksAgainstDocuments(chunks, documents, 'chunks');
  return chunks;
}

/** The BM25 base, checked to name the fragments the manifest lists, and (`which` 'all') every term fragment. */
function decodeBm25(manifest: IndexManifest, raw: InflatedFiles, walked: boolean, which: 'all' | 'none'): Bm25File {
  const path = manifest.files.bm25?.path ?? 'bm25';
  if (!raw.bm25) throw createError('INDEX_CORRUPT', path, 'file missing');
  const base = decodeBm25Base(raw.bm25, path);
  const { terms, chunks } = manifest.fragments;
  if (base.termFragments !== terms || base.chunkFragmentStarts.length !== chunks) {
    throw createError('INDEX_CORRUPT', path, `names ${base.termFragments} term and ${base.chunkFragmentStarts.length} chunk fragments, the manifest ${terms} and ${chunks}`);
  }
  const file = new Bm25File(base, path);
  if (which === 'none') return file;
  for (let i = 0; i < terms; i++) {
    const key = fragmentKey('terms', i);
    const source = manifest.files[key]?.path ?? key;
    const bytes = raw[key];
    if (!bytes) throw createError('INDEX_CORRUPT', source, 'file missing');
    file.addTerms(i, bytes, source, { walked });
  }
  return file;
}

/** Decodes the inflated files of a build into typed values (`vectors` null when `raw` has none). */
export function decodeIndexFiles(manifest: IndexManifest, raw: InflatedFiles, options: DecodeOptions = {}): LoadedIndex {
  const json = <T>(role: IndexFileRole): T => {
    const bytes = raw[role];
    if (!bytes) throw createError('INDEX_CORRUPT', role, 'file missing');
    try {
      return decodeJson<T>(bytes);
    } catch (error) {
      throw createError('INDEX_CORRUPT', manifest.files[role]?.path ?? role, error instanceof Error ? error.message : String(error));
    }
  };
  const byNeed = options.byNeed === true;
  const documents = checkDocuments(json<unknown>('documents'), manifest.files.documents?.path ?? 'documents');
  const bm25 = decodeBm25(manifest, raw, options.bm25Walked === true, byNeed ? 'none' : 'all');
  checkLocatorDocuments(bm25, documents, manifest.files.bm25?.path ?? 'bm25');
  // By need, the chunks arrive fragment by fragment (index-by-need.ts): a sparse array until then.
  const chunks = byNeed ? new Array<Chunk>(bm25.chunks) : decodeChunks(manifest, raw, bm25, documents);
  const vectors = raw.vectors ? decodeVectors(manifest, raw.vectors, bm25.chunks) : null;
  return {
    manifest,
    documents,
    chunks,
    bm25,
    vectors,
    router: raw.router ? checkRouter(json<unknown>('router'), manifest.files.router?.path ?? 'router') : null,
    lexicon: raw.lexicon ? parseMinedLexicon(json<unknown>('lexicon'), manifest.files.lexicon?.path) : null,
  };
}

/** Reads one file of a build from `source` and verifies and inflates it. */
export async function readVerified(source: IndexFileSource, entry: IndexFileEntry, signal?: AbortSignal): Promise<Uint8Array> {
  let stored: Uint8Array;
  try {
    stored = await source.read(entry.path, signal);
  } catch (error) {
    // A source's own failure (a download's) keeps its code; a file the folder lacks is a broken build.
    if (error instanceof HarelError) throw error;
    throw createError('INDEX_CORRUPT', entry.path, `cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
  return verifyAndInflate(entry, stored);
}

/** Reads, verifies and decodes a whole build. */
export async function readIndex(source: IndexFileSource, options: WorkOptions = {}): Promise<LoadedIndex> {
  const { signal, onProgress } = options;
  const manifest = await readManifest(source, signal);
  const entries = Object.entries(manifest.files) as [IndexFileKey, IndexFileEntry][];
  const total = entries.reduce((sum, [, e]) => sum + e.bytes, 0);
  let done = 0;
  const raw: InflatedFiles = {};
  for (const [role, entry] of entries) {
    throwIfAborted(signal);
    onProgress?.({ step: 'load', done, total, detail: entry.path });
    raw[role] = await readVerified(source, entry, signal);
    done += entry.bytes;
  }
  onProgress?.({ step: 'load', done, total });
  return decodeIndexFiles(manifest, raw);
}
