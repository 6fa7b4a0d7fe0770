/**
 * The data shapes the builder produces and the widget consumes. This file is the contract
 * between the two halves of the project: it knows neither Node nor the DOM.
 */

/** Languages the tokenizer and the UI know. Detected by script, not declared by the source. */
export type Lang = 'he' | 'en';

/** Where a document came from, as the shared corpus names it (`pdf` | `txt` for scraped pages). */
export type DocumentKind = 'pdf' | 'html' | 'md' | 'txt' | 'page';

/** One structural unit of a page, as a parser found it. */
export type BlockType = 'heading' | 'text' | 'row';

export interface Block {
  type: BlockType;
  /** Logical-order text (Hebrew repaired where the source stored it visually). */
  text: string;
  /** For headings: 1 = top level. Absent for other blocks. */
  level?: number;
}

export interface ParsedPage {
  /** 1-based page number; web pages and text files are one page, numbered 1. */
  page: number;
  blocks: Block[];
}

/** A document after parsing, before chunking. */
export interface ParsedDocument {
  /** Path relative to its input root, '/'-separated: the citation key (equals the corpus `file`). */
  file: string;
  url: string | null;
  domain: string;
  lang: Lang;
  title: string;
  kind: DocumentKind;
  pages: ParsedPage[];
}

/** Document metadata as stored in the index (no text: the text lives in the chunks). */
export interface IndexedDocument extends Omit<ParsedDocument, 'pages'> {
  pageCount: number;
  /** Other input files with the same content, indexed once under this one (citations may name either). */
  aliases?: string[];
  /** The same policy in another language, page to page (builder/twins/editions.ts). */
  editions?: EditionRef[];
}

/** Another-language edition of a document: which of its pages hold what this document's pages hold. */
export interface EditionRef {
  /** Index of the other edition in the index's document table. */
  doc: number;
  /** Its language, from its script: 'he', 'en' (Latin), 'ru' (Cyrillic) or 'ar' (Arabic). */
  lang: string;
  /** [this document's page, the other edition's page] pairs; a page may have two counterparts. */
  pages: [number, number][];
}

/** A retrievable passage. Never crosses a page. */
export interface Chunk {
  /** Content hash (hex) of file + page + text: stable across rebuilds when the text is unchanged. */
  id: string;
  /** Index into the index's document table. */
  doc: number;
  page: number;
  /** Headings from the outermost down, e.g. ['פרק ב', 'כיסויים', 'חריגים']. */
  sectionPath: string[];
  /** The clause number this passage sits in ('3.2.4', 'סעיף 5'), or null. */
  clause: string | null;
  /** Id of the section this chunk belongs to: chunks sharing it can be joined to widen context. */
  parentId: string;
  text: string;
  /** Token count by the embedder's tokenizer (or the calibrated estimate when none is loaded). */
  tokens: number;
  /** Group of near-identical chunks elsewhere in the index (editions, tiers, copies); absent when unique. */
  twin?: number;
  /** Group of near-identical pages this chunk's page belongs to; absent when the page is unique. */
  pageTwin?: number;
}

/** A unit of long work reports itself in this one shape. */
export interface Progress {
  /** Short name of the step: 'parse', 'chunk', 'embed', 'write', 'load'… */
  step: string;
  done: number;
  /** Unknown totals are null (a spinner rather than a bar). */
  total: number | null;
  /** What is being worked on now, e.g. a file name. */
  detail?: string;
}

export type ProgressCallback = (progress: Progress) => void;

/** What every long-running function takes besides its input. */
export interface WorkOptions {
  signal?: AbortSignal;
  onProgress?: ProgressCallback;
}
