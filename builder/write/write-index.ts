/**
 * Writes one index build as a folder of static files. Everything goes to a temporary sibling
 * folder first and is renamed into place at the end, so an interrupted build never leaves a
 * half-written index where a reader (or a CDN sync) could pick it up.
 */
import { createHash } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { encodeJson } from '../../widget/core/format/bytes.ts';
import { encodeBm25File, type Bm25Contents } from '../../widget/core/format/bm25-file.ts';
import { encodeChunkStore } from '../../widget/core/format/chunk-store.ts';
import {
  DEFAULT_RETRIEVAL,
  INDEX_FORMAT,
  INDEX_FORMAT_VERSION,
  type EmbedderInfo,
  type IndexFileEntry,
  type IndexFileRole,
  type IndexManifest,
  type RetrievalDefaults,
} from '../../widget/core/format/manifest.ts';
import { encodeVectorTable, type VectorTable } from '../../widget/core/format/vector-file.ts';
import type { MinedLexicon } from '../../widget/core/retrieval/mined-lexicon.ts';
import type { RouterModel } from '../../widget/core/retrieval/route.ts';
import { TOKENIZER_VERSION } from '../../widget/core/tokenizer/index.ts';
import type { Chunk, IndexedDocument } from '../../widget/core/schema.ts';
import { BUILDER_VERSION } from '../version.ts';

export interface IndexContents {
  documents: IndexedDocument[];
  chunks: Chunk[];
  /** The BM25 postings, compiled by compile-bm25.ts. */
  bm25: Bm25Contents;
  vectors: VectorTable | null;
  embedder: EmbedderInfo | null;
  router: RouterModel | null;
  lexicon?: MinedLexicon | null;
  retrieval?: Partial<RetrievalDefaults>;
}

const FILE_NAMES: Record<IndexFileRole, string> = {
  documents: 'documents.json.gz',
  chunks: 'chunks.bin.gz',
  bm25: 'bm25.bin.gz',
  vectors: 'vectors.bin.gz',
  router: 'router.json.gz',
  lexicon: 'lexicon.json.gz',
};

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function countPages(documents: readonly IndexedDocument[]): number {
  return documents.reduce((n, d) => n + d.pageCount, 0);
}

export function buildManifest(
  contents: IndexContents,
  files: Partial<Record<IndexFileRole, IndexFileEntry>>,
  createdAt: Date,
): IndexManifest {
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
  const buildId = createHash('sha256')
    .update(Object.values(files).map((f) => f!.sha256).join(','))
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
    files,
  };
}

/** Encodes every file of the build; returns the bytes to write, keyed by role. */
export function encodeIndexFiles(contents: IndexContents): Map<IndexFileRole, { raw: Uint8Array; stored: Uint8Array }> {
  const raw = new Map<IndexFileRole, Uint8Array>();
  raw.set('documents', encodeJson(contents.documents));
  raw.set('chunks', encodeChunkStore(contents.chunks));
  raw.set('bm25', encodeBm25File(contents.bm25));
  if (contents.vectors) raw.set('vectors', encodeVectorTable(contents.vectors));
  if (contents.router) raw.set('router', encodeJson(contents.router));
  if (contents.lexicon) raw.set('lexicon', encodeJson(contents.lexicon));
  const out = new Map<IndexFileRole, { raw: Uint8Array; stored: Uint8Array }>();
  for (const [role, bytes] of raw) out.set(role, { raw: bytes, stored: gzipSync(bytes, { level: 9 }) });
  return out;
}

export async function writeIndex(outDir: string, contents: IndexContents, now = new Date()): Promise<IndexManifest> {
  const target = resolve(outDir);
  const temp = join(dirname(target), `.${target.split(/[\\/]/).pop()}.tmp-${process.pid}-${now.getTime()}`);
  await rm(temp, { recursive: true, force: true });
  await mkdir(temp, { recursive: true });
  try {
    const files: Partial<Record<IndexFileRole, IndexFileEntry>> = {};
    for (const [role, { raw, stored }] of encodeIndexFiles(contents)) {
      const path = FILE_NAMES[role];
      await writeFile(join(temp, path), stored);
      files[role] = { path, encoding: 'gzip', bytes: stored.byteLength, rawBytes: raw.byteLength, sha256: sha256(stored) };
    }
    const manifest = buildManifest(contents, files, now);
    await writeFile(join(temp, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    // rename() cannot replace a non-empty folder: move the old build aside, swap, then delete it.
    const old = `${temp}.old`;
    let hadOld = false;
    try {
      await rename(target, old);
      hadOld = true;
    } catch {
      // no previous build
    }
    await rename(temp, target);
    if (hadOld) await rm(old, { recursive: true, force: true });
    return manifest;
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
}
