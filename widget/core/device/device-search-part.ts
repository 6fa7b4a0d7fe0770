/**
 * The customer's own documents as the retriever searches them beside the site's index: their
 * chunks, documents, BM25 postings and (as they are embedded) their vectors. Built on the device
 * from what the document worker parsed (ParsedDeviceDocument); rebuilt whole on every change,
 * since a customer adds a few documents of a few hundred chunks (BM25 of a 40-page policy
 * compiles in milliseconds), and one immutable part per change keeps a search that is running
 * on the old one consistent.
 */
import { compileBm25File } from '../format/compile-bm25.ts';
import type { Bm25File } from '../format/bm25-file.ts';
import { quantizeInt8 } from '../format/int8.ts';
import type { VectorTable } from '../format/vector-file.ts';
import type { Chunk, IndexedDocument } from '../schema.ts';
import type { ParsedDeviceDocument } from './device-document.ts';

/** The domain of a customer's document: none of the site's, so the router's filter never drops it. */
export const DEVICE_DOMAIN = '';

/** One customer document and the vectors embedded for it so far (row i: chunk i; null: not yet). */
export interface DeviceDocumentEntry {
  document: ParsedDeviceDocument;
  vectors: (Float32Array | null)[] | null;
}

export interface DeviceSearchPart {
  /** The customer documents as index documents (no URL: a device citation opens the stored page). */
  documents: IndexedDocument[];
  /** Their chunks, `doc` indexing `documents`. */
  chunks: Chunk[];
  /** The device document id (DeviceDocumentInfo.id) of each entry of `documents`. */
  documentIds: string[];
  bm25: Bm25File;
  /**
   * int8 rows aligned with `chunks`, or null while none is embedded (or the site has no vectors). A
   * row not embedded yet is all zeros: its cosine is 0, so it is never a vector hit.
   */
  vectors: VectorTable | null;
}

/**
 * The index document a customer's document stands for: its name is its file (what its citations
 * show), its title the one derived from its text (what BM25's context field and the embedded
 * passage text read, as for the site's documents).
 */
export function deviceIndexDocument(document: ParsedDeviceDocument): IndexedDocument {
  return { file: document.name, url: null, domain: DEVICE_DOMAIN, lang: document.lang, title: document.title ?? document.name, kind: 'pdf', pageCount: document.pageCount };
}

/**
 * The part for these documents in this order, or null when there are none. `dim`: the site's
 * vector width (null: no vectors). `previous`: the part before this change; when it holds the same
 * documents (only vectors came in, as they do every few chunks while embedding) its chunks and
 * BM25 postings are kept rather than compiled again.
 */
export function buildDeviceSearchPart(entries: readonly DeviceDocumentEntry[], dim: number | null, previous: DeviceSearchPart | null = null): DeviceSearchPart | null {
  if (entries.length === 0) return null;
  const documentIds = entries.map((e) => e.document.id);
  const same = previous !== null && previous.documentIds.length === documentIds.length && previous.documentIds.every((id, i) => id === documentIds[i]);
  const documents = same ? previous.documents : entries.map((e) => deviceIndexDocument(e.document));
  const chunks = same ? previous.chunks : entries.flatMap((e, doc) => e.document.chunks.map((c) => ({ ...c, doc })));
  const bm25 = same ? previous.bm25 : compileBm25File(chunks, documents);
  return { documents, chunks, documentIds, bm25, vectors: dim ? packRows(entries, chunks.length, dim) : null };
}

function packRows(entries: readonly DeviceDocumentEntry[], count: number, dim: number): VectorTable | null {
  const data = new Int8Array(count * dim);
  const scales = new Float32Array(count);
  let row = 0;
  let any = false;
  for (const entry of entries) {
    for (let i = 0; i < entry.document.chunks.length; i++, row++) {
      const vector = entry.vectors?.[i];
      if (!vector || vector.length !== dim) continue;
      const { q, scale } = quantizeInt8(vector);
      data.set(q, row * dim);
      scales[row] = scale;
      any = true;
    }
  }
  return any ? { count, dim, data, scales } : null;
}
