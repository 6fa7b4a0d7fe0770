/**
 * The page's side of reading a customer's PDF (issue 36): one document worker per document
 * (widget/workers/document-worker.ts), the file's bytes transferred to it, the worker terminated
 * when it answers or the signal fires. Terminated, not only sent the RPC's cancel: pdf.js can stay
 * busy on one page without yielding, and a cancelled read must end at once.
 */
import type { ParsedDeviceDocument } from '../core/device/device-document.ts';
import { createError, throwIfAborted } from '../core/errors.ts';
import type { Progress } from '../core/schema.ts';
import { ModuleWorker } from '../assets.ts';
import type { DocumentMethods } from '../workers/document-protocol.ts';
import { RpcClient } from '../workers/rpc.ts';

export interface ReadDeviceDocumentOptions {
  signal?: AbortSignal;
  /** Page by page (step 'parse'). */
  onProgress?: (progress: Progress) => void;
}

function startDocumentWorker(): Worker {
  // Vite finds the worker by this exact `new Worker(new URL(…))` pattern; the local name starts it
  // through ModuleWorker (a cross-origin widget starts it from a blob: shim).
  const Worker = ModuleWorker;
  return new Worker(new URL('../workers/document-worker.ts', import.meta.url), { type: 'module' });
}

/**
 * Parses and chunks a customer's PDF off the page's thread. Rejects with a HarelError: ABORTED when
 * the signal fires, else the worker's DOCUMENT_* code (parse-device-document.ts).
 */
export async function readDeviceDocument(file: Blob, name: string, options: ReadDeviceDocumentOptions = {}): Promise<ParsedDeviceDocument> {
  const { signal, onProgress } = options;
  throwIfAborted(signal);
  // The size limit is checked in the worker (parse-device-document.ts), not here: importing
  // DEVICE_DOCUMENT_LIMITS into this lazy chunk splits it out of the element's bundle into a
  // 54-byte chunk of its own that every page would fetch (tests/e2e/widget-bundle.spec.ts). A
  // caller that holds the limits (the element does) can compare `file.size` before reading.
  const bytes = await file.arrayBuffer();
  throwIfAborted(signal);

  const worker = startDocumentWorker();
  const rpc = new RpcClient<DocumentMethods>((message, transfer) => worker.postMessage(message, transfer));
  // pdf.js's own messages on this port are not the RPC's: receive leaves them alone.
  worker.onmessage = (event: MessageEvent<unknown>) => rpc.receive(event.data);
  // A worker that fails to start (blocked, a syntax error) answers nothing: fail the read.
  worker.onerror = (event) => {
    event.preventDefault();
    rpc.failAll(createError('UNEXPECTED', `the document worker failed: ${event.message || 'it could not start'}`));
  };
  try {
    return await rpc.call('parse', { bytes, name }, { signal, onEvent: onProgress, transfer: [bytes] });
  } finally {
    worker.terminate();
  }
}
