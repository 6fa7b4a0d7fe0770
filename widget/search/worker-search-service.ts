/**
 * The page's side of the search worker: a SearchService whose calls cross by the workers' RPC
 * (widget/workers/rpc.ts). Aborting a call rejects it at once and tells the worker to stop; errors
 * come back as HarelErrors. Load is written here (its URLs, its progress and later info); every
 * other method is forwarded argument for argument, from the service's own list.
 */
import { defaultWasmPaths, ModuleWorker } from '../assets.ts';
import { createError } from '../core/errors.ts';
import type { IndexLoadInfo, SearchMethods } from '../workers/search-protocol.ts';
import { RpcClient } from '../workers/rpc.ts';
import { forwardCall, forwarders } from '../workers/rpc-forward.ts';
import { type ForwardedMethod, forwardedMethods, type LoadIndexOptions, type SearchService } from './search-service.ts';

function searchWorker(): Worker {
  // Vite finds the worker by this exact `new Worker(new URL(…))` pattern; the local name starts it
  // through a same-origin shim when the bundle is on another origin (widget/assets.ts).
  const Worker = ModuleWorker;
  return new Worker(new URL('../workers/search-worker.ts', import.meta.url), { type: 'module' });
}

/** The forwarded methods, assigned in the constructor from the list that types them. */
export interface WorkerSearchService extends Pick<Required<SearchService>, ForwardedMethod> {}

// biome-ignore lint/suspicious/noUnsafeDeclarationMerging: the interface above declares what the constructor assigns
export class WorkerSearchService implements SearchService {
  private worker: Worker | null = null;
  private rpc: RpcClient<SearchMethods> | null = null;
  /** Stops hearing the latest load's info updates (one load at a time). */
  private loadFollow: AbortController | null = null;

  constructor(private readonly createWorker: () => Worker = searchWorker) {
    Object.assign(
      this,
      forwarders<SearchService, ForwardedMethod>(forwardedMethods, (method, args) => forwardCall(() => this.client(), method, args)),
    );
  }

  load(options: LoadIndexOptions): Promise<IndexLoadInfo> {
    // Every URL the worker will fetch is made absolute here, against the page's own address: the
    // worker cannot do it, since a widget on another origin runs it from a blob: URL, against
    // which no path resolves (model-base="/models/" then silently fell back to BM25).
    const base = globalThis.document?.baseURI ?? globalThis.location?.href ?? options.manifestUrl;
    const params = {
      manifestUrl: new URL(options.manifestUrl, base).href,
      modelBase: options.modelBase ? new URL(options.modelBase, base).href : null,
      embedder: options.embedder ?? null,
      queryModel: options.queryModel ?? null,
      // Unset: /ort/ on the dev server, `ort/` beside the bundle when built (widget/assets.ts).
      wasmPaths: new URL(options.wasmPaths ?? defaultWasmPaths(), base).href,
    };
    if (options.signal?.aborted) return Promise.reject(createError('ABORTED'));
    // A new load supersedes the one before (the worker stops it): its updates are no longer heard.
    this.loadFollow?.abort();
    const follow = (this.loadFollow = new AbortController());
    const { onProgress, onInfo } = options;
    return this.client().call('load', params, {
      signal: options.signal,
      onEvent: (event) => {
        if ('progress' in event) onProgress?.(event.progress);
      },
      after: onInfo && {
        onEvent: (event) => {
          if ('info' in event) onInfo(event.info);
        },
        until: follow.signal,
      },
    });
  }

  dispose(): void {
    this.worker?.terminate();
    this.worker = null;
    this.loadFollow?.abort();
    this.rpc?.failAll(createError('ABORTED'));
    this.rpc = null;
  }

  private client(): RpcClient<SearchMethods> {
    if (this.rpc) return this.rpc;
    const worker = this.createWorker();
    const rpc = new RpcClient<SearchMethods>((message, transfer) => worker.postMessage(message, transfer));
    worker.onmessage = (event: MessageEvent<unknown>) => rpc.receive(event.data);
    // A worker that fails to start (bad URL, syntax error) answers nothing: fail what waits on it.
    worker.onerror = (event) => {
      event.preventDefault();
      rpc.failAll(createError('UNEXPECTED', `the search worker failed: ${event.message || 'it could not start'}`));
      worker.terminate();
      if (this.worker === worker) {
        this.worker = null;
        this.rpc = null;
      }
    };
    this.worker = worker;
    return (this.rpc = rpc);
  }
}
