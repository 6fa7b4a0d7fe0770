/**
 * The chunk store: every chunk's text and metadata, stored column by column. Columns of small
 * integers and a shared string table for section headings compress far better than an array of
 * objects repeating the same keys and headings on every row.
 */
import { createError } from '../errors.ts';
import type { Chunk } from '../schema.ts';

export interface ChunkStoreJson {
  count: number;
  ids: string[];
  doc: number[];
  page: number[];
  /** Each chunk's section path as indices into `strings`. */
  sectionPath: number[][];
  /** Index into `strings`, or -1 for no clause. */
  clause: number[];
  parentId: string[];
  tokens: number[];
  text: string[];
  strings: string[];
  /** Twin group of each chunk, -1 for none (absent in builds without twin detection). */
  twin?: number[];
  /** Twin group of each chunk's page, -1 for none. */
  pageTwin?: number[];
}

export function encodeChunkStore(chunks: readonly Chunk[]): ChunkStoreJson {
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
  return {
    count: chunks.length,
    ids: chunks.map((c) => c.id),
    doc: chunks.map((c) => c.doc),
    page: chunks.map((c) => c.page),
    sectionPath: chunks.map((c) => c.sectionPath.map(intern)),
    clause: chunks.map((c) => (c.clause === null ? -1 : intern(c.clause))),
    parentId: chunks.map((c) => c.parentId),
    tokens: chunks.map((c) => c.tokens),
    text: chunks.map((c) => c.text),
    strings,
    twin: chunks.map((c) => c.twin ?? -1),
    pageTwin: chunks.map((c) => c.pageTwin ?? -1),
  };
}

export function decodeChunkStore(json: ChunkStoreJson, source = 'chunks'): Chunk[] {
  const columns = ['ids', 'doc', 'page', 'sectionPath', 'clause', 'parentId', 'tokens', 'text'] as const;
  for (const column of columns) {
    if (!Array.isArray(json[column]) || json[column].length !== json.count) {
      throw createError('INDEX_CORRUPT', source, `column ${column} is missing or has the wrong length`);
    }
  }
  const { strings } = json;
  const chunks: Chunk[] = new Array(json.count);
  for (let i = 0; i < json.count; i++) {
    const clause = json.clause[i];
    chunks[i] = {
      id: json.ids[i],
      doc: json.doc[i],
      page: json.page[i],
      sectionPath: json.sectionPath[i].map((s) => strings[s]),
      clause: clause < 0 ? null : strings[clause],
      parentId: json.parentId[i],
      tokens: json.tokens[i],
      text: json.text[i],
    };
    const twin = json.twin?.[i] ?? -1;
    const pageTwin = json.pageTwin?.[i] ?? -1;
    if (twin >= 0) chunks[i].twin = twin;
    if (pageTwin >= 0) chunks[i].pageTwin = pageTwin;
  }
  return chunks;
}
