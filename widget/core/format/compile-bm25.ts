/**
 * Compiles the chunks into the BM25 postings of the index format (widget/core/format/bm25-file.ts). The
 * counts are Orama's, as the reference index in builder/eval/orama-bm25.ts keeps them once its
 * two bookkeeping steps are replaced: raw term frequency, document frequency counted per chunk,
 * and field lengths in tokens with repeats; the average field length is Orama's running average,
 * computed in the same order, so scores agree with the reference to the bit.
 */
import { BM25_FIELDS, Bm25File, encodeBm25Files, NO_DOMAIN, type Bm25Contents, type Bm25Field, type ChunkLocator } from './bm25-file.ts';
import { throwIfAborted } from '../errors.ts';
import { tokenize } from '../tokenizer/tokenize.ts';
import type { Chunk, IndexedDocument, WorkOptions } from '../schema.ts';
import { finishNow, runSteps, type Steps } from '../steps.ts';

/** File names carry product names ("תנאי-פוליסת-ניתוחים-…"): their words count as context. */
function fileWords(file: string): string {
  const name = file.split('/').pop() ?? file;
  return name.replace(/\.(pdf|txt|html?|aspx|md|json)$/gi, '').replace(/[-_.]+/g, ' ');
}

/** Document title, file name and section path: the `context` field, matched with a lower boost. */
export function chunkContext(chunk: Chunk, document: IndexedDocument): string {
  return [document.title, fileWords(document.file), ...chunk.sectionPath].join(' \u203a ');
}

/** The text of each BM25 field of a chunk. */
export function chunkFields(chunk: Chunk, document: IndexedDocument): Record<Bm25Field, string> {
  return { body: chunk.text, context: chunkContext(chunk, document) };
}

/**
 * The build's compiler: the same postings as `compileBm25`, with the event loop given a turn
 * every few tens of milliseconds so that Ctrl-C stops it (widget/core/steps.ts).
 */
export function compileBm25Async(chunks: readonly Chunk[], documents: readonly IndexedDocument[], options: WorkOptions = {}): Promise<Bm25Contents> {
  return runSteps(compileBm25Steps(chunks, documents, options), options.signal);
}

/**
 * For in-memory indexes (tests, the bench's synthetic corpora): compiles at once. Kept synchronous
 * beside `compileBm25Async` so that those callers need no event loop and no signal; both run the
 * one generator below, so they cannot drift apart.
 */
export function compileBm25(chunks: readonly Chunk[], documents: readonly IndexedDocument[], options: WorkOptions = {}): Bm25Contents {
  return finishNow(compileBm25Steps(chunks, documents, options));
}

function* compileBm25Steps(chunks: readonly Chunk[], documents: readonly IndexedDocument[], options: WorkOptions): Steps<Bm25Contents> {
  const domains = [...new Set(documents.map((d) => d.domain))].sort();
  if (domains.length >= NO_DOMAIN) throw new Error(`too many domains (${domains.length})`);
  const domainIndex = new Map(domains.map((d, i) => [d, i]));
  const fieldLengths = { body: new Uint32Array(chunks.length), context: new Uint32Array(chunks.length) };
  const avgFieldLength = { body: 0, context: 0 };
  const chunkDomain = new Uint16Array(chunks.length);
  const locator = chunkLocator(chunks);
  const postings: Bm25Contents['postings'] = new Map();
  const counts = new Map<string, number>();
  const step = 1000;
  for (let i = 0; i < chunks.length; i++) {
    if (i % step === 0) {
      throwIfAborted(options.signal);
      options.onProgress?.({ step: 'bm25', done: i, total: chunks.length });
    }
    yield;
    const document = documents[chunks[i].doc];
    chunkDomain[i] = domainIndex.get(document.domain)!;
    const texts = chunkFields(chunks[i], document);
    const docsCount = i + 1;
    for (const field of BM25_FIELDS) {
      const tokens = tokenize(texts[field]);
      avgFieldLength[field] = (avgFieldLength[field] * (docsCount - 1) + tokens.length) / docsCount;
      fieldLengths[field][i] = tokens.length;
      counts.clear();
      for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [term, tf] of counts) {
        let entry = postings.get(term);
        if (!entry) postings.set(term, (entry = {}));
        (entry[field] ??= []).push(i, tf);
      }
    }
  }
  options.onProgress?.({ step: 'bm25', done: chunks.length, total: chunks.length });
  return { chunks: chunks.length, avgFieldLength, fieldLengths, domains, chunkDomain, locator, postings };
}

/**
 * Each chunk's document, page and section (the number of the first chunk of its document, page
 * and parent section): what ranking reads of every candidate, kept in the BM25 base so that a
 * reader ranks without the chunk fragments and reads only its hits' (index-by-need.ts).
 */
export function chunkLocator(chunks: readonly Pick<Chunk, 'doc' | 'page' | 'parentId'>[]): ChunkLocator {
  const doc = new Uint32Array(chunks.length);
  const page = new Uint32Array(chunks.length);
  const section = new Uint32Array(chunks.length);
  const first = new Map<string, number>();
  chunks.forEach((c, i) => {
    doc[i] = c.doc;
    page[i] = c.page;
    const key = `${c.doc}\u0000${c.page}\u0000${c.parentId}`;
    let at = first.get(key);
    if (at === undefined) first.set(key, (at = i));
    section[i] = at;
  });
  return { doc, page, section };
}

/** The compiled postings as a reader sees them: for in-memory indexes (tests, the bench's synthetic corpora). */
export function compileBm25File(chunks: readonly Chunk[], documents: readonly IndexedDocument[]): Bm25File {
  const { base, terms } = encodeBm25Files(compileBm25(chunks, documents));
  return Bm25File.decode(base, terms);
}
