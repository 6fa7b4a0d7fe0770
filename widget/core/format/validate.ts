/**
 * Shape checks for what an index build's JSON holds (the manifest, documents.json, router.json)
 * and for how its decoded files fit together: a file of the wrong shape is refused as
 * INDEX_CORRUPT when it is read, not met later as a TypeError inside a search (found by fuzzing
 * index files: docs/reliability.md). The bytes have passed their sha256 by then, so these catch a publisher's (or a
 * tool's) mistake or a hostile build, never a download error.
 */
import { createError, type HarelError } from '../errors.ts';
import type { Chunk, IndexedDocument } from '../schema.ts';
import type { RouterModel } from '../retrieval/route-model.ts';
import type { VectorTable } from './vector-file.ts';

type Fail = (reason: string) => HarelError;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isFiniteNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isString = (v: unknown): v is string => typeof v === 'string';

/** A file name inside the index folder: no folders, no "..", nothing a URL would read differently. */
export const INDEX_FILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

const FILE_ROLES = ['documents', 'bm25', 'vectors', 'router', 'lexicon'] as const;
/** Fragment keys (`terms-3`, `chunks-12`); parseManifest checks each one its `fragments` counts is listed. */
export const FRAGMENT_KEY = /^(terms|chunks)-(0|[1-9][0-9]{0,6})$/;
const DTYPES = new Set(['q8', 'q4', 'fp32']);

/**
 * The manifest's fields that readers use, by type: `files` (each entry a plain file name, gzip,
 * byte counts and a sha256), the embedder, the counts and the retrieval defaults. Roles the reader
 * does not know are dropped by the caller; an unknown field elsewhere is ignored.
 */
export function checkManifestFields(m: Record<string, unknown>, source: string): void {
  const fail: Fail = (reason) => createError('INDEX_CORRUPT', source, reason);
  if (!isString(m.buildId) || m.buildId.length === 0 || m.buildId.length > 200) throw fail('buildId is not a string');
  for (const key of ['createdAt', 'builderVersion', 'tokenizerVersion'] as const) if (m[key] !== undefined && !isString(m[key])) throw fail(`${key} is not a string`);
  if (!isObject(m.files)) throw fail('files is not an object');
  const paths = new Set<string>();
  const keys = [...FILE_ROLES, ...Object.keys(m.files).filter((key) => FRAGMENT_KEY.test(key))];
  for (const role of keys) {
    if (!Object.hasOwn(m.files, role)) continue;
    const e = m.files[role];
    if (!isObject(e)) throw fail(`files.${role} is not an object`);
    if (!isString(e.path) || !INDEX_FILE_NAME.test(e.path) || e.path === 'manifest.json') throw fail(`files.${role}.path is not a file name in the index folder`);
    if (paths.has(e.path)) throw fail(`files.${role}.path names a file another role names`);
    paths.add(e.path);
    if (e.encoding !== 'gzip') throw fail(`files.${role}.encoding is not "gzip"`);
    if (!isCount(e.bytes) || !isCount(e.rawBytes)) throw fail(`files.${role}.bytes or rawBytes is not a byte count`);
    if (!isString(e.sha256) || !/^[0-9a-f]{64}$/.test(e.sha256)) throw fail(`files.${role}.sha256 is not a hex sha256`);
  }
  if (m.embedder !== null && m.embedder !== undefined) {
    const e = m.embedder;
    if (!isObject(e)) throw fail('embedder is not an object');
    if (!isString(e.id) || !e.id) throw fail('embedder.id is not a string');
    if (!isCount(e.dimensions) || e.dimensions === 0 || e.dimensions > 65536) throw fail('embedder.dimensions is not a positive integer');
    for (const key of ['passagePrefix', 'queryPrefix'] as const) if (!isString(e[key])) throw fail(`embedder.${key} is not a string`);
    if (e.dtype !== undefined && !DTYPES.has(e.dtype as string)) throw fail('embedder.dtype is not q8, q4 or fp32');
    if (e.queryDtype !== undefined && !DTYPES.has(e.queryDtype as string) && e.queryDtype !== 'q4f32' && e.queryDtype !== 'q4i8') throw fail('embedder.queryDtype is not q8, q4, fp32, q4f32 or q4i8');
    if (e.queryModel !== undefined && (!isString(e.queryModel) || !e.queryModel)) throw fail('embedder.queryModel is not a model id');
  }
  const c = m.counts;
  if (!isObject(c) || !isCount(c.documents) || !isCount(c.chunks) || !isCount(c.pages)) throw fail('counts are not counts');
  for (const key of ['byDomain', 'byLang'] as const) {
    const table = c[key];
    if (!isObject(table)) throw fail(`counts.${key} is not an object`);
    for (const [name, row] of Object.entries(table)) if (!isObject(row) || !isCount(row.documents) || !isCount(row.chunks)) throw fail(`counts.${key}.${name} is not a count table`);
  }
  if (m.retrieval !== undefined) checkRetrieval(m.retrieval, fail);
}

function checkRetrieval(r: unknown, fail: Fail): void {
  if (!isObject(r)) throw fail('retrieval is not an object');
  const number = (key: string, min: number, max: number) => {
    const v = r[key];
    if (v !== undefined && (!isFiniteNumber(v) || v < min || v > max)) throw fail(`retrieval.${key} is not a number from ${min} to ${max}`);
  };
  number('bm25Weight', 0, 1);
  number('routeMinConfidence', 0, 1);
  number('rrfK', 0, 1e6);
  number('routeBoost', 0, 1e3);
  number('contextBoost', 0, 1e3);
  number('expansionWeight', 0, 1e3);
  number('minedExpansionWeight', 0, 1e3);
  for (const key of ['bm25Pool', 'vectorPool']) {
    const v = r[key];
    if (v !== undefined && (!isCount(v) || v < 1 || v > 1e6)) throw fail(`retrieval.${key} is not a pool size`);
  }
  if (r.fusion !== undefined && r.fusion !== 'minmax' && r.fusion !== 'rrf') throw fail('retrieval.fusion is not a fusion method');
  if (r.termMatch !== undefined && r.termMatch !== 'whole' && r.termMatch !== 'prefix') throw fail('retrieval.termMatch is not "whole" or "prefix"');
  if (r.collapseTwins !== undefined && typeof r.collapseTwins !== 'boolean') throw fail('retrieval.collapseTwins is not a boolean');
}

/** documents.json: one well-formed entry per document; editions point at other entries. */
export function checkDocuments(json: unknown, source: string): IndexedDocument[] {
  const fail: Fail = (reason) => createError('INDEX_CORRUPT', source, reason);
  if (!Array.isArray(json)) throw fail('not a list of documents');
  json.forEach((d: unknown, i) => {
    if (!isObject(d)) throw fail(`document ${i} is not an object`);
    for (const key of ['file', 'domain', 'lang', 'title', 'kind'] as const) if (!isString(d[key])) throw fail(`document ${i}: ${key} is not a string`);
    if (d.url !== null && !isString(d.url)) throw fail(`document ${i}: url is not a string or null`);
    if (!isCount(d.pageCount)) throw fail(`document ${i}: pageCount is not a count`);
    if (d.aliases !== undefined && !(Array.isArray(d.aliases) && d.aliases.every(isString))) throw fail(`document ${i}: aliases are not strings`);
    if (d.editions !== undefined) {
      if (!Array.isArray(d.editions)) throw fail(`document ${i}: editions is not a list`);
      for (const e of d.editions as unknown[]) {
        const ok =
          isObject(e) && isCount(e.doc) && e.doc < json.length && isString(e.lang) && Array.isArray(e.pages) && e.pages.every((p: unknown) => Array.isArray(p) && p.length === 2 && p.every(isCount));
        if (!ok) throw fail(`document ${i}: an edition is malformed`);
      }
    }
  });
  return json as IndexedDocument[];
}

/** router.json: the naive Bayes model routeQuery reads. */
export function checkRouter(json: unknown, source: string): RouterModel {
  const fail: Fail = (reason) => createError('INDEX_CORRUPT', source, reason);
  if (!isObject(json)) throw fail('not a router model');
  const m = json;
  if (!Array.isArray(m.domains) || !m.domains.every(isString) || m.domains.length === 0) throw fail('domains are not a list of names');
  if (!Array.isArray(m.terms) || !m.terms.every(isString)) throw fail('terms are not a list of strings');
  const width = m.domains.length;
  if (!Array.isArray(m.weights) || m.weights.length !== m.terms.length) throw fail('weights do not match the terms');
  for (const row of m.weights as unknown[]) if (!Array.isArray(row) || row.length !== width || !row.every(isFiniteNumber)) throw fail('a weight row is malformed');
  if (!Array.isArray(m.curated)) throw fail('curated is not a list');
  for (const p of m.curated as unknown[]) {
    if (!isObject(p) || !isCount(p.domain) || p.domain >= width || !Array.isArray(p.terms) || !p.terms.every(isString)) throw fail('a curated phrase is malformed');
  }
  if (!isFiniteNumber(m.curatedBonus) || !isFiniteNumber(m.temperature) || m.temperature <= 0 || !isFiniteNumber(m.minConfidence))
    throw fail('curatedBonus, temperature or minConfidence is not a number');
  return json as unknown as RouterModel;
}

/** Chunks point at documents, twins at chunks, and each chunk's page lies in its document. */
/** `total`: the chunks of the whole build, which twins may name (default: these). */
export function checkChunksAgainstDocuments(chunks: readonly Chunk[], documents: readonly IndexedDocument[], source: string, total = chunks.length): void {
  const fail: Fail = (reason) => createError('INDEX_CORRUPT', source, reason);
  const ids = new Set<string>();
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i];
    if (!isString(c.id) || ids.has(c.id)) throw fail(`chunk ${i} has a missing or repeated id`);
    ids.add(c.id);
    if (!isString(c.parentId)) throw fail(`chunk ${i} has no parent id`);
    if (c.doc >= documents.length) throw fail(`chunk ${i} names document ${c.doc} of ${documents.length}`);
    if ((c.twin !== undefined && c.twin >= total) || (c.pageTwin !== undefined && c.pageTwin >= total)) throw fail(`chunk ${i} names a twin that does not exist`);
  }
}

/** The BM25 base's locator names documents the build has. */
export function checkLocatorDocuments(base: { locator: { doc: Uint32Array } }, documents: readonly IndexedDocument[], source: string): void {
  const docs = base.locator.doc;
  for (let i = 0; i < docs.length; i++) if (docs[i] >= documents.length) throw createError('INDEX_CORRUPT', source, `chunk ${i} names document ${docs[i]} of ${documents.length}`);
}

/** What a chunk fragment must agree with: the BM25 base's chunk count, fragment starts and locator. */
export interface ChunkFragmentPlace {
  chunks: number;
  chunkFragmentStarts: readonly number[];
  locator: { doc: Uint32Array; page: Uint32Array; section: Uint32Array };
}

/**
 * A chunk fragment lies where the base says (fragment `index` starts at its first chunk and ends
 * where the next starts) and says of each chunk what the base's locator says: its document and
 * page, and the parent section of the chunk its section starts at. Ranking reads the locator and
 * an answer the chunks: a build where the two disagree would cite a page it did not rank.
 */
export function checkChunkFragment(fragment: { first: number; chunks: readonly Chunk[] }, index: number, base: ChunkFragmentPlace, source: string): void {
  const fail: Fail = (reason) => createError('INDEX_CORRUPT', source, reason);
  const starts = base.chunkFragmentStarts;
  const end = starts[index + 1] ?? base.chunks;
  if (fragment.first !== starts[index] || fragment.first + fragment.chunks.length !== end) {
    throw fail(`holds chunks ${fragment.first}–${fragment.first + fragment.chunks.length - 1}, the BM25 base places fragment ${index} at ${starts[index]}–${end - 1}`);
  }
  const { doc, page, section } = base.locator;
  fragment.chunks.forEach((c, k) => {
    const i = fragment.first + k;
    const s = section[i] - fragment.first;
    if (c.doc !== doc[i] || c.page !== page[i] || s < 0 || fragment.chunks[s]?.parentId !== c.parentId) throw fail(`chunk ${i} is not where the BM25 base places it`);
  });
}

/**
 * Vectors: the manifest's dimensions, and scales a unit vector can have (int8 × scale, so at most
 * 1/127 for a normalised one; 1 is a generous bound): a NaN or a huge scale would rank hits NaN.
 */
export function checkVectors(vectors: VectorTable, dimensions: number | undefined, source: string): void {
  const fail: Fail = (reason) => createError('INDEX_CORRUPT', source, reason);
  if (dimensions !== undefined && vectors.dim !== dimensions) throw fail(`vectors have ${vectors.dim} dimensions, the manifest says ${dimensions}`);
  for (let i = 0; i < vectors.count; i++) if (!(vectors.scales[i] >= 0 && vectors.scales[i] <= 1)) throw fail(`vector ${i} has scale ${vectors.scales[i]}`);
}
