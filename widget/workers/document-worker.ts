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
import { asHarelError } from '../core/errors.ts';
import type { PdfJs } from '../core/pdf/parse-pdf.ts';
import type { DocumentWorkerRequest, DocumentWorkerResponse } from './document-protocol.ts';

const scope = self as unknown as { postMessage(message: DocumentWorkerResponse): void; addEventListener(type: 'message', listener: (event: MessageEvent<DocumentWorkerRequest>) => void): void };
const post = (message: DocumentWorkerResponse) => scope.postMessage(message);

let pdfjs: Promise<PdfJs> | null = null;

function loadPdfJs(): Promise<PdfJs> {
  pdfjs ??= (async () => {
    (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker ??= await import('pdfjs-dist/build/pdf.worker.mjs');
    return import('pdfjs-dist');
  })();
  return pdfjs;
}

let controller: AbortController | null = null;

async function parse(request: Extract<DocumentWorkerRequest, { type: 'parse' }>): Promise<void> {
  controller = new AbortController();
  try {
    const document = await parseDeviceDocument(await loadPdfJs(), new Uint8Array(request.bytes), request.name, {
      signal: controller.signal,
      assets: request.assets,
      onProgress: (progress) => post({ type: 'progress', progress }),
    });
    post({ type: 'parsed', document });
  } catch (error) {
    const harel = asHarelError(error);
    post({ type: 'error', error: { code: harel.code, message: harel.message } });
  }
}

// addEventListener, not onmessage: pdf.js's worker code listens on this port too (for messages addressed to it).
scope.addEventListener('message', (event) => {
  const request = event.data;
  if (request?.type === 'parse') void parse(request);
  else if (request?.type === 'abort') controller?.abort();
});
