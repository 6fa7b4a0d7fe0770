/**
 * The document worker's method map for the RPC (rpc.ts): the page (widget/search/document-reader.ts)
 * asks the document worker (document-worker.ts) to parse one customer PDF, and terminates it
 * once answered: one call a worker.
 *
 * pdf.js's own worker code, loaded into the document worker, announces itself on the worker's
 * port as it would in a worker of its own ({sourceName, targetName, action}, no `rpc` tag): the
 * page's RPC client leaves every such message alone.
 */
import type { ParsedDeviceDocument } from '../core/device/device-document.ts';
import type { PdfAssets } from '../core/pdf/parse-pdf.ts';
import type { Progress } from '../core/schema.ts';

export type DocumentMethods = {
  /**
   * Parse and chunk this file; `bytes` is transferred. `assets` are absolute URLs (the worker may
   * run from a blob: URL). Progress page by page (step 'parse'); a cancel answers ABORTED.
   */
  parse: { params: { bytes: ArrayBuffer; name: string; assets?: PdfAssets }; reply: ParsedDeviceDocument; event: Progress };
};
