/**
 * `chunks-<i>.bin`, a fragment of format 3's chunk store: the text and metadata of a run of
 * chunks in document order, column by column, in the container of sections.ts (magic "HCC3").
 * The header's `first` is the number of its first chunk in the whole index; a build's fragments
 * follow each other without a gap, and a fragment ends where a document does (one of more than
 * a fragment's size is a fragment of its own), so that a document's chunks (a hit's section, the
 * clauses it refers to) are read from one fragment.
 *
 * Numbers are typed-array sections. All texts are one UTF-8 section, and a chunk's `text` is a
 * getter that decodes its own bytes when read: a start decodes no text at all (format 1 parsed
 * the whole corpus out of JSON on every start, and one TextDecoder call over it still costs 70 ms
 * or more), and the worker's heap holds only the texts search actually returns, the rest staying
 * as bytes. A getter on each object, not on a class prototype, so that spreading a chunk or
 * serialising it still copies its text. Ids, parent ids and the shared table of section headings
 * and clause numbers stay in the JSON header (about 40 bytes a chunk).
 *
 *   sections  doc, page, tokens            Uint32Array(count)
 *             clause, twin, pageTwin       Int32Array(count)   (-1: none; clause indexes strings)
 *             sectionPathStart             Uint32Array(count + 1) into sectionPathItems
 *             sectionPathItems             Uint32Array          indexes into strings
 *             textStart                    Uint32Array(count + 1) byte offsets into the text
 *             text                         UTF-8
 */
import { createError } from '../errors.ts';
import type { Chunk } from '../schema.ts';
import { readSections, typedBytes, writeSections } from './sections.ts';

export const CHUNK_STORE_MAGIC = 'HCC3';

interface ChunkStoreHeader {
  count: number;
  first: number;
  ids: string[];
  parentIds: string[];
  strings: string[];
}

/** Encodes `chunks`, the index's chunks from number `first` on. */
export function encodeChunkStore(chunks: readonly Chunk[], first = 0): Uint8Array {
  const strings: string[] = [];
  const stringIndex = new Map<string, number>();
  const intern = (s: string): number => {
    let i = stringIndex.get(s);
    if (i === undefined) {
      i = strings.length;
      strings.push(s);
      stringIndex.set(s, i);
    }
    return i;
  };
  const n = chunks.length;
  const column = (value: (c: Chunk) => number) => Uint32Array.from(chunks, value);
  const signed = (value: (c: Chunk) => number) => Int32Array.from(chunks, value);
  const sectionPathStart = new Uint32Array(n + 1);
  const items: number[] = [];
  const textStart = new Uint32Array(n + 1);
  const encoder = new TextEncoder();
  const texts = chunks.map((c) => encoder.encode(c.text));
  chunks.forEach((c, i) => {
    sectionPathStart[i] = items.length;
    for (const s of c.sectionPath) items.push(intern(s));
    textStart[i + 1] = textStart[i] + texts[i].length;
  });
  const text = new Uint8Array(textStart[n]);
  texts.forEach((bytes, i) => text.set(bytes, textStart[i]));
  sectionPathStart[n] = items.length;
  const clause = signed((c) => (c.clause === null ? -1 : intern(c.clause)));
  const header: ChunkStoreHeader = { count: n, first, ids: chunks.map((c) => c.id), parentIds: chunks.map((c) => c.parentId), strings };
  return writeSections(CHUNK_STORE_MAGIC, header, [
    ['doc', typedBytes(column((c) => c.doc))],
    ['page', typedBytes(column((c) => c.page))],
    ['tokens', typedBytes(column((c) => c.tokens))],
    ['clause', typedBytes(clause)],
    ['twin', typedBytes(signed((c) => c.twin ?? -1))],
    ['pageTwin', typedBytes(signed((c) => c.pageTwin ?? -1))],
    ['sectionPathStart', typedBytes(sectionPathStart)],
    ['sectionPathItems', typedBytes(Uint32Array.from(items))],
    ['textStart', typedBytes(textStart)],
    ['text', text],
  ]);
}

/** A decoded fragment: the number of its first chunk in the index, and its chunks. */
export interface ChunkFragment {
  first: number;
  chunks: Chunk[];
}

export function decodeChunkStore(bytes: Uint8Array, source = 'chunks.bin'): ChunkFragment {
  const file = readSections<ChunkStoreHeader>(bytes, CHUNK_STORE_MAGIC, source);
  const { count, first, ids, parentIds, strings } = file.header;
  const fail = (reason: string) => createError('INDEX_CORRUPT', source, reason);
  if (!Number.isInteger(count) || count < 0 || !Number.isInteger(first) || first < 0) throw fail('malformed header');
  for (const [name, list] of [
    ['ids', ids],
    ['parentIds', parentIds],
  ] as const) {
    if (!Array.isArray(list) || list.length !== count) throw fail(`column ${name} is missing or has the wrong length`);
  }
  if (!Array.isArray(strings)) throw fail('string table missing');
  const doc = file.array('doc', Uint32Array, count);
  const page = file.array('page', Uint32Array, count);
  const tokens = file.array('tokens', Uint32Array, count);
  const clause = file.array('clause', Int32Array, count);
  const twin = file.array('twin', Int32Array, count);
  const pageTwin = file.array('pageTwin', Int32Array, count);
  const pathStart = file.array('sectionPathStart', Uint32Array, count + 1);
  const pathItems = file.array('sectionPathItems', Uint32Array, pathStart[count] ?? 0);
  const textStart = file.array('textStart', Uint32Array, count + 1);
  const text = file.bytes('text');
  if (textStart[count] !== text.length) throw fail(`text has ${text.length} bytes, the offsets ${textStart[count]}`);
  // Not fatal: the bytes passed their sha256; a stray invalid sequence shows as U+FFFD rather
  // than failing a search long after the index loaded.
  const decoder = new TextDecoder('utf-8');
  const chunks: Chunk[] = new Array(count);
  for (let i = 0; i < count; i++) {
    if (textStart[i] > textStart[i + 1] || pathStart[i] > pathStart[i + 1]) throw fail(`offsets of chunk ${i} are out of order`);
    const path: string[] = [];
    for (let j = pathStart[i]; j < pathStart[i + 1]; j++) {
      const heading = strings[pathItems[j]];
      if (heading === undefined) throw fail(`chunk ${i} names a missing heading`);
      path.push(heading);
    }
    const chunk: Chunk = {
      id: ids[i],
      doc: doc[i],
      page: page[i],
      sectionPath: path,
      clause: clause[i] < 0 ? null : (strings[clause[i]] ?? null),
      parentId: parentIds[i],
      tokens: tokens[i],
      get text() {
        return decoder.decode(text.subarray(textStart[i], textStart[i + 1]));
      },
    };
    if (twin[i] >= 0) chunk.twin = twin[i];
    if (pageTwin[i] >= 0) chunk.pageTwin = pageTwin[i];
    chunks[i] = chunk;
  }
  return { first, chunks };
}

/**
 * Where a build's chunk store is cut into fragments: the number of each fragment's first chunk.
 * A fragment takes whole documents until it holds at least `target` chunks (chunks are in
 * document order); one fragment when `target` is at least the chunk count.
 */
export function chunkFragmentStarts(chunks: readonly Pick<Chunk, 'doc'>[], target: number): number[] {
  const starts = [0];
  let size = 0;
  for (let i = 0; i < chunks.length; i++) {
    const documentEnds = i + 1 === chunks.length || chunks[i + 1].doc !== chunks[i].doc;
    size++;
    if (documentEnds && size >= target && i + 1 < chunks.length) {
      starts.push(i + 1);
      size = 0;
    }
  }
  return starts;
}
