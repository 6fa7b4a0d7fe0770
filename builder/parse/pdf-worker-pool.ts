/**
 * PDFs parsed in worker threads (`pdf-worker.ts`), so that a parse can be stopped: when its signal
 * aborts (ingest's per-file limit, PARSE_TIMEOUT; a cancelled build, Ctrl-C) the thread is
 * terminate()d at once and the caller goes on.
 *
 * Why a thread: in Node, pdf.js runs its own "worker" on the calling thread, and some files keep
 * its lexer busy for tens of seconds without once yielding to the event loop (a PDF's first bytes
 * repeated a few thousand times: docs/reliability.md, the documents fuzzer's seed 402). On the
 * builder's thread no timer, AbortSignal or SIGINT handler can run until pdf.js is done; a worker
 * thread can be stopped from outside, mid-loop.
 *
 * Why a pool: a fresh thread takes about 1.3 s to its first page (tsx compiles its modules, pdf.js
 * loads), against 15–40 ms for the demo's PDF in a warm one; 20 of the shared Harel, QBE and claim
 * PDFs took 4.6 s in one reused thread (6.0 s on the builder's own thread), 37.6 s with a thread
 * each (2 loaded cores, 2026-11-26), and harel-feb-raw holds 100. So up to `size` idle threads are
 * kept and reused; one that was stopped or failed is terminated, and the next PDF starts a new
 * one. Idle threads are unref()'d: they never keep the process alive.
 */
import { Worker } from 'node:worker_threads';
import { createError, HarelError, throwIfAborted } from '../errors.ts';
import type { ParsedPage, WorkOptions } from '../../widget/core/schema.ts';
import type { PdfWorkerReply, PdfWorkerRequest } from './pdf-worker.ts';
import { workerBootCode } from '../worker-boot.ts';

/** ingest's PARSE_CONCURRENCY: no more are ever in flight at once, so no more are kept. */
const POOL_SIZE = 2;

const WORKER_ENTRY = new URL('./pdf-worker.ts', import.meta.url);

export class PdfWorkerPool {
  private readonly idle: Worker[] = [];

  /** `entry`: the thread's module (tests start a broken one). */
  constructor(
    private readonly size = POOL_SIZE,
    private readonly entry = WORKER_ENTRY,
  ) {}

  /**
   * `parsePdf` (builder/parse/pdf.ts) in a thread of the pool. The signal stops it at once
   * (ABORTED) and terminates the thread; a thread that crashes or exits is PARSE_FAILED.
   */
  readonly parse = (bytes: Uint8Array, file: string, options: WorkOptions = {}): Promise<ParsedPage[]> => {
    const { signal } = options;
    throwIfAborted(signal);
    const worker = this.idle.pop() ?? this.start();
    worker.ref();
    return new Promise<ParsedPage[]>((resolve, reject) => {
      const settle = (reusable: boolean): void => {
        signal?.removeEventListener('abort', onAbort);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (reusable && this.idle.length < this.size) {
          worker.unref();
          this.idle.push(worker);
        } else {
          worker.terminate().catch(() => undefined);
        }
      };
      const onMessage = (reply: PdfWorkerReply): void => {
        settle(true);
        if (reply.type === 'parsed') resolve(reply.pages);
        // No code: something pdf.js threw unforeseen, which parse-file.ts reports as PDF_UNREADABLE.
        else reject(reply.code ? new HarelError(reply.code, reply.message) : new Error(reply.message));
      };
      const onAbort = (): void => {
        settle(false);
        reject(createError('ABORTED'));
      };
      const onError = (error: Error): void => {
        settle(false);
        reject(createError('PARSE_FAILED', file, `the PDF parser's thread failed: ${error.message}`));
      };
      const onExit = (code: number): void => {
        settle(false);
        reject(createError('PARSE_FAILED', file, `the PDF parser's thread stopped with exit code ${code}`));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      worker.on('message', onMessage).on('error', onError).on('exit', onExit);
      // A copy for the thread, its buffer transferred, not cloned: the caller's bytes stay its own.
      const copy = bytes.slice();
      const request: PdfWorkerRequest = { type: 'parse', file, bytes: copy };
      worker.postMessage(request, [copy.buffer]);
    });
  };

  private start(): Worker {
    const worker = new Worker(workerBootCode(this.entry), { eval: true });
    // Always listened to, so that a thread failing while idle is dropped rather than an unhandled
    // 'error' ending the build; a busy thread's failure also fails its parse (see parse).
    const drop = (): void => {
      const at = this.idle.indexOf(worker);
      if (at >= 0) this.idle.splice(at, 1);
    };
    worker.on('error', drop).on('exit', drop);
    return worker;
  }

  /** Terminates the idle threads (a busy one ends with its parse). The builder need not: idle threads are unref()'d. */
  async close(): Promise<void> {
    await Promise.all(this.idle.splice(0).map((worker) => worker.terminate()));
  }
}

/** The builder's pool, shared by every ingest in the process: threads start with the first PDF. */
export const pdfWorkerPool = new PdfWorkerPool();
