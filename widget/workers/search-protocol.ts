/**
 * The search worker's method map for the RPC (rpc.ts): the page's calls, their replies and a
 * load's events, typed together. A SearchService method crosses argument for argument
 * (rpc-forward.ts), so it is named here only through the service's own list.
 */
import type { Progress } from '../core/schema.ts';
import type { ForwardedMethod, IndexInfo, SearchService } from '../search/search-service.ts';
import type { Forwarded } from './rpc-forward.ts';
import type { RpcRequest, RpcResponse, SerializedError } from './rpc.ts';

export type { SerializedError };

/**
 * LoadIndexOptions without what cannot be posted (signal, callback), every URL made absolute by the
 * page against its own address: the worker may run from a blob: URL (widget on another origin),
 * against which no relative URL resolves, so it never resolves one itself.
 */
export interface WorkerLoadOptions {
  manifestUrl: string;
  modelBase: string | null;
  embedder: string | null;
  queryModel: string | null;
  wasmPaths: string;
}

/** IndexInfo plus why the build in use is not the manifest's current one (rejected, unreachable). */
export interface IndexLoadInfo extends IndexInfo {
  indexError: SerializedError | null;
  /** Where query embedding runs ('webgpu' when an adapter was found), null without an embedder. */
  embedderDevice: 'webgpu' | 'wasm' | null;
  /** onnxruntime's threads for questions (more than one on a cross-origin isolated page), null without an embedder. */
  embedderThreads: number | null;
}

/** A load's news on its id: progress until its reply, then each change of its info (the query model's progress, then hybrid or why not). */
export type LoadEvent = { progress: Progress } | { info: IndexLoadInfo };

/** The search worker's methods: load, and the SearchService's own, forwarded argument for argument. */
export type SearchMethods = { load: { params: WorkerLoadOptions; reply: IndexLoadInfo; event: LoadEvent } } & Forwarded<SearchService, ForwardedMethod>;

export type SearchWorkerRequest = RpcRequest<SearchMethods>;
export type SearchWorkerResponse = RpcResponse<SearchMethods>;
