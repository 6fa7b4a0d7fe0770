/**
 * Reads an index build from any byte source (a folder in Node, HTTP or IndexedDB in a browser),
 * verifying each file's size and sha256 against the manifest before decoding it.
 */
import { createError, HarelError, throwIfAborted } from '../errors.ts';
import type { Chunk, IndexedDocument, WorkOptions } from '../schema.ts';
import { decodeJson, gunzip, sha256Hex } from './bytes.ts';
import { decodeChunkStore } from './chunk-store.ts';
import { parseManifest, type IndexFileEntry, type IndexFileRole, type IndexManifest } from './manifest.ts';
import { decodeVectorTable, type VectorTable } from './vector-file.ts';
import { Bm25File } from './bm25-file.ts';
import { checkChunksAgainstDocuments, checkDocuments, checkRouter, checkVectors } from './validate.ts';
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
  /** The BM25 postings, used in place (format 2). */
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
}

function bm25File(bytes: Uint8Array | undefined, path = 'bm25.bin', walked = false): Bm25File {
  if (!bytes) throw createError('INDEX_CORRUPT', path, 'file missing');
  return Bm25File.decode(bytes, path, { walked });
}

/** Decodes vectors.bin and checks it against its build: the embedder's dimensions, one vector per chunk. */
export function decodeVectors(manifest: IndexManifest, bytes: Uint8Array, chunkCount: number): VectorTable {
  const path = manifest.files.vectors?.path ?? 'vectors';
  const vectors = decodeVectorTable(bytes, path);
  checkVectors(vectors, manifest.embedder?.dimensions, path);
  if (vectors.count !== chunkCount) throw createError('INDEX_CORRUPT', path, `${vectors.count} vectors for ${chunkCount} chunks`);
  return vectors;
}

/** Decodes the inflated files of a build into typed values (`vectors` null when `raw` has none). */
export function decodeIndexFiles(manifest: IndexManifest, raw: Partial<Record<IndexFileRole, Uint8Array>>, options: DecodeOptions = {}): LoadedIndex {
  const json = <T>(role: IndexFileRole): T => {
    const bytes = raw[role];
    if (!bytes) throw createError('INDEX_CORRUPT', role, 'file missing');
    try {
      return decodeJson<T>(bytes);
    } catch (error) {
      throw createError('INDEX_CORRUPT', manifest.files[role]?.path ?? role, error instanceof Error ? error.message : String(error));
    }
  };
  if (!raw.chunks) throw createError('INDEX_CORRUPT', manifest.files.chunks?.path ?? 'chunks', 'file missing');
  const chunks = decodeChunkStore(raw.chunks, manifest.files.chunks?.path);
  const vectors = raw.vectors ? decodeVectors(manifest, raw.vectors, chunks.length) : null;
  const bm25 = bm25File(raw.bm25, manifest.files.bm25?.path, options.bm25Walked);
  if (bm25.chunks !== chunks.length) {
    throw createError('INDEX_CORRUPT', manifest.files.bm25?.path ?? 'bm25', `postings for ${bm25.chunks} chunks, the chunk store has ${chunks.length}`);
  }
  const documents = checkDocuments(json<unknown>('documents'), manifest.files.documents?.path ?? 'documents');
  checkChunksAgainstDocuments(chunks, documents, manifest.files.chunks?.path ?? 'chunks');
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

/** Reads, verifies and decodes a whole build. */
export async function readIndex(source: IndexFileSource, options: WorkOptions = {}): Promise<LoadedIndex> {
  const { signal, onProgress } = options;
  const manifest = await readManifest(source, signal);
  const entries = Object.entries(manifest.files) as [IndexFileRole, IndexFileEntry][];
  const total = entries.reduce((sum, [, e]) => sum + e.bytes, 0);
  let done = 0;
  const raw: Partial<Record<IndexFileRole, Uint8Array>> = {};
  for (const [role, entry] of entries) {
    throwIfAborted(signal);
    onProgress?.({ step: 'load', done, total, detail: entry.path });
    let stored: Uint8Array;
    try {
      stored = await source.read(entry.path, signal);
    } catch (error) {
      // A source's own failure (a download's) keeps its code; a file the folder lacks is a broken build.
      if (error instanceof HarelError) throw error;
      throw createError('INDEX_CORRUPT', entry.path, `cannot be read (${error instanceof Error ? error.message : String(error)})`);
    }
    raw[role] = await verifyAndInflate(entry, stored);
    done += entry.bytes;
  }
  onProgress?.({ step: 'load', done, total });
  return decodeIndexFiles(manifest, raw);
}
