/**
 * The page's side of reading a customer's PDF (issue 36): one document worker per document
 * (widget/workers/document-worker.ts), the file's bytes transferred to it, the worker terminated
 * when it answers or the signal fires. Terminating rather than asking it to stop: pdf.js can stay
 * busy on one page without yielding, and a cancelled read must end at once.
 */
import type { ParsedDeviceDocument } from '../core/device/device-document.ts';
import { DEVICE_DOCUMENT_LIMITS } from '../core/device/device-document.ts';
import { createError, HarelError, throwIfAborted } from '../core/errors.ts';
import type { Progress } from '../core/schema.ts';
import { ModuleWorker } from '../assets.ts';
import { type DocumentWorkerRequest, isDocumentWorkerResponse } from '../workers/document-protocol.ts';

export interface ReadDeviceDocumentOptions {
  signal?: AbortSignal;
  /** Page by page (step 'parse'). */
  onProgress?: (progress: Progress) => void;
}

const MB = 1024 * 1024;

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
  // Refused here too, before a file of any size is read into memory.
  const { maxBytes } = DEVICE_DOCUMENT_LIMITS;
  if (file.size > maxBytes) throw createError('DOCUMENT_TOO_LARGE', name, Math.round((file.size / MB) * 10) / 10, maxBytes / MB);
  const bytes = await file.arrayBuffer();
  throwIfAborted(signal);

  const worker = startDocumentWorker();
  return new Promise<ParsedDeviceDocument>((resolve, reject) => {
    const finish = () => {
      signal?.removeEventListener('abort', onAbort);
      worker.terminate();
    };
    const onAbort = () => {
      finish();
      reject(createError('ABORTED'));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.onmessage = (event: MessageEvent<unknown>) => {
      const message = event.data;
      if (!isDocumentWorkerResponse(message)) return;
      if (message.type === 'progress') {
        onProgress?.(message.progress);
        return;
      }
      finish();
      if (message.type === 'parsed') resolve(message.document);
      else reject(new HarelError(message.error.code, message.error.message));
    };
    // A worker that fails to start (blocked, a syntax error) answers nothing: fail the read.
    worker.onerror = (event) => {
      event.preventDefault();
      finish();
      reject(createError('UNEXPECTED', `the document worker failed: ${event.message || 'it could not start'}`));
    };
    worker.postMessage({ type: 'parse', bytes, name } satisfies DocumentWorkerRequest, [bytes]);
  });
}
