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
  const hash = await sha256Hex(stored);
  if (hash !== entry.sha256) throw createError('INDEX_INTEGRITY', entry.path, 'sha256 mismatch');
  try {
    const raw = await gunzip(stored, entry.rawBytes);
    if (raw.byteLength !== entry.rawBytes) throw new RangeError(`inflates to ${raw.byteLength} bytes, the manifest gives ${entry.rawBytes}`);
    return raw;
  } catch (error) {
    throw createError('INDEX_CORRUPT', entry.path, error instanceof Error ? error.message : String(error));
  }
}

function bm25File(bytes: Uint8Array | undefined, path = 'bm25.bin'): Bm25File {
  if (!bytes) throw createError('INDEX_CORRUPT', path, 'file missing');
  return Bm25File.decode(bytes, path);
}

/** Decodes the inflated files of a build into typed values. */
export function decodeIndexFiles(manifest: IndexManifest, raw: Partial<Record<IndexFileRole, Uint8Array>>): LoadedIndex {
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
  const vectors = raw.vectors ? decodeVectorTable(raw.vectors, manifest.files.vectors?.path) : null;
  if (vectors) checkVectors(vectors, manifest.embedder?.dimensions, manifest.files.vectors?.path ?? 'vectors');
  if (vectors && vectors.count !== chunks.length) {
    throw createError('INDEX_CORRUPT', manifest.files.vectors?.path ?? 'vectors', `${vectors.count} vectors for ${chunks.length} chunks`);
  }
  const bm25 = bm25File(raw.bm25, manifest.files.bm25?.path);
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
