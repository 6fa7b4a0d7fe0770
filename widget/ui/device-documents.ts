/**
 * The customer's own documents in the interface's words (issue 36), without the DOM: a document's
 * status line, an addition's progress, an error's sentence in the panel's language, and a device
 * citation's label. A document's name is the customer's file name: it is shown with its bidi
 * controls removed and isolated, so an English name keeps its order in a Hebrew sentence (and the
 * reverse), and a crafted name cannot reorder the sentence around it.
 */
import { DEVICE_DOCUMENT_LIMITS, type DeviceDocumentInfo } from '../core/device/device-document.ts';
import { stripBidiControls } from '../core/bidi-controls.ts';
import type { Progress, Lang } from '../core/schema.ts';
import type { DocumentAddition } from '../session/device-documents.ts';
import { UI_STRINGS } from './strings.ts';

/** A name as a sentence holds it: bidi controls removed, in a first-strong isolate. */
export function isolatedName(name: string): string {
  return `\u2068${stripBidiControls(name)}\u2069`;
}

/** The share of a document's chunks embedded, 0-100. */
export function embeddedPercent(info: Pick<DeviceDocumentInfo, 'embedding'>): number {
  const { done, total } = info.embedding;
  return total > 0 ? Math.min(100, Math.floor((100 * done) / total)) : 0;
}

export interface DocumentStatusView {
  /** 'words': answered by BM25 while its vectors are embedded; 'ready': all done (or nothing to embed); 'failed': embedding failed. */
  state: 'words' | 'ready' | 'failed';
  text: string;
  /** The embedding's share while it runs, else null. */
  percent: number | null;
}

/** A listed document's status line: "answers by words now; meaning search N%", then "ready". */
export function documentStatus(info: DeviceDocumentInfo, ui: Lang): DocumentStatusView {
  const s = UI_STRINGS[ui].documents;
  switch (info.embedding.status) {
    // 'none': the site's index has no vectors, so words are all there is to search by.
    case 'done':
    case 'none':
      return { state: 'ready', text: s.ready, percent: null };
    case 'failed':
      return { state: 'failed', text: s.embedFailed, percent: null };
    default: {
      const percent = embeddedPercent(info);
      return { state: 'words', text: s.wordsNow(percent), percent };
    }
  }
}

/** An addition's line: reading (page n of N when the reader says), then preparing it for search. */
export function additionText(addition: DocumentAddition, ui: Lang): string {
  const s = UI_STRINGS[ui].documents;
  const name = isolatedName(addition.name);
  if (addition.step === 'index') return s.indexing(name);
  const p: Progress | null = addition.progress;
  return p?.total ? s.readingPages(name, Math.min(p.done, p.total), p.total) : s.reading(name);
}

type DocumentErrorCode = keyof (typeof UI_STRINGS)['en']['documents']['errors'];

/** Why a document could not be added (or opened), in the panel's language; a code without words of its own says it could not be added. */
export function documentErrorText(error: { code: string }, name: string, ui: Lang): string {
  const s = UI_STRINGS[ui].documents;
  const shown = isolatedName(name);
  const megabytes = DEVICE_DOCUMENT_LIMITS.maxBytes / (1024 * 1024);
  if (error.code in s.errors) return s.errors[error.code as DocumentErrorCode](shown, megabytes, DEVICE_DOCUMENT_LIMITS.maxPages);
  return s.failed(shown);
}

/** A device citation's label: "Your document — {name}, page {page}". */
export function deviceCitationLabel(name: string, page: number, ui: Lang): string {
  return UI_STRINGS[ui].documents.citation(isolatedName(name), page);
}

/** Whether a drag carries files (a drag of text or a link is left to the page and the text box). */
export function isFileDrag(transfer: Pick<DataTransfer, 'types'> | null): boolean {
  return !!transfer && Array.from(transfer.types).includes('Files');
}

/** A device page opened from a citation card: loading, its text, or why it could not be opened. */
export type DevicePageState = { status: 'loading' } | { status: 'shown'; text: string } | { status: 'failed'; code: string; message: string };

/** The pages opened from citation cards, by document and page (devicePageKey). */
export type DevicePages = ReadonlyMap<string, DevicePageState>;

export function devicePageKey(documentId: string, page: number): string {
  return `${documentId}#${page}`;
}
