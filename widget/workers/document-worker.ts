/**
 * The document worker: parses and chunks one customer PDF on the device (issue 36) with the
 * builder's rules (core/device/parse-device-document.ts), off the page's thread. The page starts one
 * per document and terminates it when done or cancelled (widget/search/document-reader.ts).
 *
 * pdf.js is imported on the first request, so that the worker's own chunk stays small, and its
 * worker code runs in this thread: pdf.js finds it on globalThis.pdfjsWorker (its documented
 * "fake worker" path, as the builder does in Node) instead of starting a worker of its own. Both
 * are the modern build (`pdfjs-dist` is build/pdf.mjs), not the legacy one the builder runs in Node.
 */
import { parseDeviceDocument } from '../core/device/parse-device-document.ts';
import type { PdfJs } from '../core/pdf/parse-pdf.ts';
import type { DocumentMethods } from './document-protocol.ts';
import { serve, type WorkerScope } from './rpc.ts';

let pdfjs: Promise<PdfJs> | null = null;

function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= (async () => {
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker ??= await import('pdfjs-dist/build/pdf.worker.mjs');
    return import('pdfjs-dist');
  })();
  return pdfjs;
}

serve<DocumentMethods>(self as unknown as WorkerScope, {
  parse: async ({ bytes, name, assets }, { signal, emit }) => parseDeviceDocument(await loadPdfJs(), new Uint8Array(bytes), name, { signal, assets, onProgress: emit }),
});
