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

export function buildManifest(contents: IndexContents, files: Partial<Record<IndexFileRole, IndexFileEntry>>, createdAt: Date): IndexManifest {
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
    files,
    ...(contents.site ? { site: contents.site } : {}),
  };
}

type Encoder = (contents: IndexContents) => (() => Uint8Array) | null;

/** How each file is encoded, in the order they are written; null when the build has no such file. */
const ENCODERS: Record<IndexFileRole, Encoder> = {
  documents: (c) => () => encodeJson(c.documents),
  chunks: (c) => () => encodeChunkStore(c.chunks),
  bm25: (c) => () => encodeBm25File(c.bm25),
  vectors: (c) => (c.vectors ? () => encodeVectorTable(c.vectors!) : null),
  router: (c) => (c.router ? () => encodeJson(c.router) : null),
  lexicon: (c) => (c.lexicon ? () => encodeJson(c.lexicon) : null),
};
const FILE_ROLES = Object.keys(ENCODERS) as IndexFileRole[];

/** Encodes every file of the build; returns the bytes to write, keyed by role. */
export function encodeIndexFiles(contents: IndexContents): Map<IndexFileRole, { raw: Uint8Array; stored: Uint8Array }> {
  const out = new Map<IndexFileRole, { raw: Uint8Array; stored: Uint8Array }>();
  for (const role of FILE_ROLES) {
    const encode = ENCODERS[role](contents);
    if (!encode) continue;
    const raw = encode();
    out.set(role, { raw, stored: gzipSync(raw, { level: 9 }) });
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
    const roles = FILE_ROLES.filter((role) => ENCODERS[role](contents) !== null);
    const files: Partial<Record<IndexFileRole, IndexFileEntry>> = {};
    const total = roles.length + 1;
    onProgress?.({ step: 'write', done: 0, total });
    for (const [i, role] of roles.entries()) {
      await pause(signal);
      const raw = ENCODERS[role](contents)!();
      await pause(signal);
      const stored = new Uint8Array(await gzip(raw, { level: 9 }));
      throwIfAborted(signal);
      const path = FILE_NAMES[role];
      await writeDurably(join(temp, path), stored);
      files[role] = { path, encoding: 'gzip', bytes: stored.byteLength, rawBytes: raw.byteLength, sha256: sha256(stored) };
      onProgress?.({ step: 'write', done: i + 1, total, detail: path });
    }
    const manifest = buildManifest(contents, files, now);
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
