/**
 * The inside of a PDF worker thread (started by `pdf-worker-pool.ts`): one `parse` request at a
 * time, answered with the pages or the failure. The thread exists so that the builder can
 * terminate() a parse that pdf.js keeps busy without yielding; see the pool for why.
 */
import { parentPort } from 'node:worker_threads';
import { type ErrorCode, isHarelError } from '../errors.ts';
import type { ParsedPage } from '../../widget/core/schema.ts';
import { parsePdf } from './pdf.ts';

/** Pool → thread. `bytes` is transferred: its buffer belongs to the thread from then on. */
export type PdfWorkerRequest = { type: 'parse'; file: string; bytes: Uint8Array };

/**
 * Thread → pool: the pages (plain objects, cloned as they are), or why not. A HarelError does not
 * survive the structured clone as one, so its code and message travel; `code` is null for anything
 * else, which the pool treats as the in-thread parser's unforeseen errors are (PDF_UNREADABLE).
 */
export type PdfWorkerReply = { type: 'parsed'; pages: ParsedPage[] } | { type: 'failed'; code: ErrorCode | null; message: string };

const port = parentPort;
if (!port) throw new Error('builder/parse/pdf-worker.ts is the entry of a worker thread (builder/parse/pdf-worker-pool.ts starts it)');

port.on('message', async (request: PdfWorkerRequest) => {
  let reply: PdfWorkerReply;
  try {
    reply = { type: 'parsed', pages: await parsePdf(request.bytes, request.file) };
  } catch (error) {
    reply = isHarelError(error) ? { type: 'failed', code: error.code, message: error.message } : { type: 'failed', code: null, message: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(reply);
});
