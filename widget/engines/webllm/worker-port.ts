/**
 * Stands between the LLM worker and web-llm's client: web-llm's client throws on message kinds it
 * does not know, so the widget's own messages are taken out here, and a worker that dies (its
 * module fails to load, a crash) is reported instead of leaving calls unanswered.
 */
import { isRpcMessage, noticeOf } from '../../workers/rpc.ts';
import type { HarelWorkerNotice } from './protocol.ts';

/** The shape web-llm's `WebWorkerMLCEngine` drives (its `ChatWorker`). */
export interface ChatWorkerPort {
  onmessage: ((event: MessageEvent) => void) | null;
  postMessage(message: unknown): void;
}

export class LlmWorkerPort implements ChatWorkerPort {
  onmessage: ((event: MessageEvent) => void) | null = null;
  /** The last failure the worker reported outside a web-llm request. */
  lastError: string | null = null;
  private terminated = false;
  private readonly failureListeners = new Set<(message: string) => void>();

  constructor(readonly worker: Worker) {
    worker.addEventListener('message', (event: MessageEvent) => {
      if (!isRpcMessage(event.data)) this.onmessage?.(event);
      else this.own(noticeOf<HarelWorkerNotice>(event.data));
    });
    // Fires when the worker's module cannot be fetched or evaluated: nothing else would answer.
    worker.addEventListener('error', (event: ErrorEvent) => {
      event.preventDefault();
      this.fail(event.message || 'the LLM worker could not start');
    });
  }

  postMessage(message: unknown): void {
    if (!this.terminated) this.worker.postMessage(message);
  }

  /** Called with a reason when the worker can no longer answer. */
  onFailure(listener: (message: string) => void): () => void {
    this.failureListeners.add(listener);
    return () => this.failureListeners.delete(listener);
  }

  terminate(): void {
    if (this.terminated) return;
    this.terminated = true;
    this.worker.terminate();
  }

  get isTerminated(): boolean {
    return this.terminated;
  }

  private own(notice: HarelWorkerNotice | null): void {
    // An unhandled rejection in the worker is not fatal by itself (web-llm leaves some behind
    // when a load is cut short); it is kept to explain a later failure.
    if (notice?.type === 'error') this.lastError = notice.message;
  }

  private fail(message: string): void {
    this.lastError = message;
    for (const listener of this.failureListeners) listener(message);
  }
}
