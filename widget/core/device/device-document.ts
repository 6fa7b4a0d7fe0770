/**
 * A customer's own document, read on the device (issue 36): the shapes the document worker, the
 * device store, the search worker and the panel share. The document never leaves the device, so
 * nothing here carries a URL: a device citation opens the page's text from local storage.
 */
import type { Chunk, Lang } from '../schema.ts';

/** What one customer document may be: larger files are refused before any parsing (DOCUMENT_TOO_LARGE, DOCUMENT_TOO_MANY_PAGES). */
export const DEVICE_DOCUMENT_LIMITS = { maxBytes: 20 * 1024 * 1024, maxPages: 300 } as const;

/** The `origin` of a passage or citation: the site's index, or a document the customer added on this device. */
export type PassageOrigin = 'site' | 'device';

/** A customer's document parsed and chunked on the device: what the document worker returns and the device store keeps. */
export interface ParsedDeviceDocument {
  /** sha256 (hex) of the file's bytes: its id. A second copy of the same bytes is refused (DOCUMENT_DUPLICATE). */
  id: string;
  /** The name shown in the panel and on citations (the file's name, or the one `addDocument` was given). */
  name: string;
  /**
   * Its title as the builder would derive it (the first heading, else the file name): searched with
   * its passages, as a site document's title is. Absent in documents kept before it existed (the name serves).
   */
  title?: string;
  lang: Lang;
  pageCount: number;
  /** Each page's text in reading order, page 1 first: what a device citation opens. */
  pageTexts: string[];
  /** The document's chunks, cut by the builder's own rules (widget/core/chunk), `doc` 0. */
  chunks: Chunk[];
}

/**
 * The vectors of a device document for hybrid search, embedded in the background after it answers
 * by BM25: 'waiting' (queued), 'running', 'done', 'failed' (error says why; BM25 still answers),
 * 'none' (the site's index has no vectors, so there is nothing to embed against).
 */
export type DeviceEmbeddingStatus = 'waiting' | 'running' | 'done' | 'failed' | 'none';

/** What the panel lists and `el.addDocument()` resolves to. */
export interface DeviceDocumentInfo {
  id: string;
  name: string;
  pages: number;
  chunks: number;
  lang: Lang;
  /** When it was added (ms since the epoch). */
  addedAt: number;
  embedding: { status: DeviceEmbeddingStatus; done: number; total: number; error?: string };
}
