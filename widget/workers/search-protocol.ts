/**
 * Messages between the page and the search worker. Every request carries an id; every answer to
 * it (progress, then ready/result or error; after a load's ready, its info updates) carries the same id. Errors cross as {code, message}
 * because a HarelError's class does not survive structured cloning.
 */
import type { ErrorCode } from '../core/errors.ts';
import type { RouteResult } from '../core/retrieval/route.ts';
import type { Progress } from '../core/schema.ts';
import type { IndexInfo, SearchRequest, SearchResponse } from '../search/search-service.ts';
import type { DeviceDocumentInfo, ParsedDeviceDocument } from '../core/device/device-document.ts';

export interface SerializedError {
  code: ErrorCode;
  message: string;
}

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

export type SearchWorkerRequest =
  | { type: 'load'; id: number; options: WorkerLoadOptions }
  | { type: 'search'; id: number; request: SearchRequest }
  /** The router's verdict on a text alone (the loop asks whether a short question keeps the topic). */
  | { type: 'route'; id: number; query: string }
  /** The cosine between a question and a sentence (SearchService.similarity). */
  | { type: 'similarity'; id: number; query: string; text: string }
  /** Keeps and indexes a customer's document parsed on the device (its file's bytes transferred). */
  | { type: 'addDocument'; id: number; document: ParsedDeviceDocument; file: ArrayBuffer }
  | { type: 'removeDocument'; id: number; documentId: string }
  | { type: 'removeAllDocuments'; id: number }
  /** The text of one page of a customer's document, from the device's storage. */
  | { type: 'devicePage'; id: number; documentId: string; page: number }
  /** Cancels the request with this id. */
  | { type: 'abort'; id: number };

export type SearchWorkerResponse =
  | { type: 'progress'; id: number; progress: Progress }
  | { type: 'ready'; id: number; info: IndexLoadInfo }
  /** After 'ready', on the load's id: the info again, changed (the query model's progress, then hybrid or why not). */
  | { type: 'info'; id: number; info: IndexLoadInfo }
  | { type: 'result'; id: number; response: SearchResponse }
  | { type: 'routed'; id: number; route: RouteResult | null }
  | { type: 'similar'; id: number; similarity: number | null }
  | { type: 'documentAdded'; id: number; info: DeviceDocumentInfo }
  /** A request that returns nothing (removals) is done. */
  | { type: 'done'; id: number }
  | { type: 'pageText'; id: number; text: string }
  | { type: 'error'; id: number; error: SerializedError };

export type SearchMessageType = SearchWorkerRequest['type'] | SearchWorkerResponse['type'];
