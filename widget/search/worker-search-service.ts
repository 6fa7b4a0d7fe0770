/**
 * The page's side of the search worker: a SearchService whose calls become messages by id.
 * Aborting a call rejects it at once and tells the worker to stop; errors come back as HarelErrors.
 */
import { defaultWasmPaths, ModuleWorker } from '../assets.ts';
import { createError, HarelError } from '../core/errors.ts';
import type { Progress } from '../core/schema.ts';
import type { IndexLoadInfo, SearchWorkerRequest, SearchWorkerResponse, SerializedError } from '../workers/search-protocol.ts';
import type { RouteResult } from '../core/retrieval/route.ts';
import type { LoadIndexOptions, SearchRequest, SearchResponse, SearchService } from './search-service.ts';
import type { DeviceDocumentInfo, ParsedDeviceDocument } from '../core/device/device-document.ts';

interface Pending {
  resolve(value: unknown): void;
  reject(error: HarelError): void;
  onProgress?: (progress: Progress) => void;
  /** A load's: kept after its ready, for the info updates that follow (the query model). */
  onInfo?: (info: IndexLoadInfo) => void;
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

const toError = (e: SerializedError) => new HarelError(e.code, e.message);

function searchWorker(): Worker {
  // Vite finds the worker by this exact `new Worker(new URL(…))` pattern; the local name starts it
  // through a same-origin shim when the bundle is on another origin (widget/assets.ts).
  const Worker = ModuleWorker;
  return new Worker(new URL('../workers/search-worker.ts', import.meta.url), { type: 'module' });
}

export class WorkerSearchService implements SearchService {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** The latest load, once ready: its id and who hears its info updates (one load at a time). */
  private loadWatch: { id: number; onInfo: (info: IndexLoadInfo) => void } | null = null;

  constructor(private readonly createWorker: () => Worker = searchWorker) {}

  load(options: LoadIndexOptions): Promise<IndexLoadInfo> {
    // Every URL the worker will fetch is made absolute here, against the page's own address: the
    // worker cannot do it, since a widget on another origin runs it from a blob: URL, against
    // which no path resolves (model-base="/models/" then silently fell back to BM25).
    const base = globalThis.document?.baseURI ?? globalThis.location?.href ?? options.manifestUrl;
    return this.call<IndexLoadInfo>(
      {
        type: 'load',
        options: {
          manifestUrl: new URL(options.manifestUrl, base).href,
          modelBase: options.modelBase ? new URL(options.modelBase, base).href : null,
          embedder: options.embedder ?? null,
          queryModel: options.queryModel ?? null,
          // Unset: /ort/ on the dev server, `ort/` beside the bundle when built (widget/assets.ts).
          wasmPaths: new URL(options.wasmPaths ?? defaultWasmPaths(), base).href,
        },
      },
      options.signal,
      options.onProgress,
      options.onInfo,
    );
  }

  search(request: SearchRequest, signal?: AbortSignal): Promise<SearchResponse> {
    return this.call<SearchResponse>({ type: 'search', request }, signal);
  }

  route(query: string): Promise<RouteResult | null> {
    return this.call<RouteResult | null>({ type: 'route', query });
  }

  similarity(query: string, text: string, signal?: AbortSignal): Promise<number | null> {
    return this.call<number | null>({ type: 'similarity', query, text }, signal);
  }

  addDocument(document: ParsedDeviceDocument, file: Uint8Array, signal?: AbortSignal): Promise<DeviceDocumentInfo> {
    // A copy is transferred: the caller keeps its bytes, the worker owns its own.
    const bytes = file.slice().buffer;
    return this.call<DeviceDocumentInfo>({ type: 'addDocument', document, file: bytes }, signal, undefined, undefined, [bytes]);
  }

  removeDocument(documentId: string): Promise<void> {
    return this.call<void>({ type: 'removeDocument', documentId });
  }

  removeAllDocuments(): Promise<void> {
    return this.call<void>({ type: 'removeAllDocuments' });
  }

  devicePage(documentId: string, page: number): Promise<string> {
    return this.call<string>({ type: 'devicePage', documentId, page });
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
    this.loadWatch = null;
    for (const p of this.pending.values()) p.reject(createError('ABORTED'));
    this.pending.clear();
  }

  private call<T>(
    message: DistributiveOmit<SearchWorkerRequest, 'id'>,
    signal?: AbortSignal,
    onProgress?: (p: Progress) => void,
    onInfo?: (info: IndexLoadInfo) => void,
    transfer: Transferable[] = [],
  ): Promise<T> {
    if (signal?.aborted) return Promise.reject(createError('ABORTED'));
    const id = this.nextId++;
    // A new load supersedes the one before (the worker stops it): its updates are no longer heard.
    if (message.type === 'load') this.loadWatch = null;
    const worker = this.ensureWorker();
    return new Promise<T>((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        worker.postMessage({ type: 'abort', id } satisfies SearchWorkerRequest);
        reject(createError('ABORTED'));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const settle =
        <A>(fn: (a: A) => void) =>
        (a: A) => {
          signal?.removeEventListener('abort', onAbort);
          fn(a);
        };
      this.pending.set(id, { resolve: settle(resolve as (v: unknown) => void), reject: settle(reject), onProgress, onInfo });
      worker.postMessage({ ...message, id } as SearchWorkerRequest, transfer);
    });
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = this.createWorker();
    worker.onmessage = (event: MessageEvent<SearchWorkerResponse>) => this.receive(event.data);
    // A worker that fails to start (bad URL, syntax error) answers nothing: fail what waits on it.
    worker.onerror = (event) => {
      event.preventDefault();
      const error = createError('UNEXPECTED', `the search worker failed: ${event.message || 'it could not start'}`);
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
      this.worker?.terminate();
      this.worker = null;
    };
    return (this.worker = worker);
  }

  private receive(message: SearchWorkerResponse): void {
    if (message.type === 'info') {
      if (this.loadWatch?.id === message.id) this.loadWatch.onInfo(message.info);
      return;
    }
    const pending = this.pending.get(message.id);
    if (!pending) return; // aborted or disposed meanwhile (or a load's late error after its ready)
    switch (message.type) {
      case 'progress':
        pending.onProgress?.(message.progress);
        return;
      case 'ready':
        this.pending.delete(message.id);
        if (pending.onInfo) this.loadWatch = { id: message.id, onInfo: pending.onInfo };
        pending.resolve(message.info);
        return;
      case 'result':
        this.pending.delete(message.id);
        pending.resolve(message.response);
        return;
      case 'routed':
        this.pending.delete(message.id);
        pending.resolve(message.route);
        return;
      case 'similar':
        this.pending.delete(message.id);
        pending.resolve(message.similarity);
        return;
      case 'documentAdded':
        this.pending.delete(message.id);
        pending.resolve(message.info);
        return;
      case 'done':
        this.pending.delete(message.id);
        pending.resolve(undefined);
        return;
      case 'pageText':
        this.pending.delete(message.id);
        pending.resolve(message.text);
        return;
      case 'error':
        this.pending.delete(message.id);
        pending.reject(toError(message.error));
        return;
    }
  }
}
