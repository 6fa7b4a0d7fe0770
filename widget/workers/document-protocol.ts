/**
 * Messages between the page (widget/search/document-reader.ts) and the document worker
 * (document-worker.ts), which parses one customer PDF and is then terminated: one request a worker,
 * so no ids. Errors cross as {code, message} because a HarelError's class does not survive
 * structured cloning.
 *
 * pdf.js's own worker code, loaded into the document worker, announces itself on the worker's
 * port as it would in a worker of its own ({sourceName, targetName, action}, no `type`): the page
 * ignores every message that is not one of these (isDocumentWorkerResponse).
 */
import type { ParsedDeviceDocument } from '../core/device/device-document.ts';
import type { PdfAssets } from '../core/pdf/parse-pdf.ts';
import type { Progress } from '../core/schema.ts';
import type { SerializedError } from './search-protocol.ts';

export type DocumentWorkerRequest =
  /** Parse and chunk this file; `bytes` is transferred. `assets` are absolute URLs (the worker may run from a blob: URL). */
  | { type: 'parse'; bytes: ArrayBuffer; name: string; assets?: PdfAssets }
  /** Stop the parse (it answers with an ABORTED error). */
  | { type: 'abort' };

export type DocumentWorkerResponse =
  /** Page by page (step 'parse'). */
  { type: 'progress'; progress: Progress } | { type: 'parsed'; document: ParsedDeviceDocument } | { type: 'error'; error: SerializedError };

const RESPONSE_TYPES: ReadonlySet<string> = new Set<DocumentWorkerResponse['type']>(['progress', 'parsed', 'error']);

/** True for this protocol's answers, false for pdf.js's own messages on the same port. */
export function isDocumentWorkerResponse(message: unknown): message is DocumentWorkerResponse {
  return typeof message === 'object' && message !== null && RESPONSE_TYPES.has((message as { type?: unknown }).type as string);
}
