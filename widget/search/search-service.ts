/**
 * What the answer loop needs from search, whether it runs in a Web Worker (the widget) or in the
 * same thread (Node tests, evals). The worker client and the in-thread service both implement it.
 */
import type { EmbedderInfo, SiteInfo } from '../core/format/manifest.ts';
import type { RetrievedPassage, SearchResult } from '../core/retrieval/retriever.ts';
import type { RouteResult } from '../core/retrieval/route.ts';
import type { Progress } from '../core/schema.ts';
import type { DeviceDocumentInfo, ParsedDeviceDocument } from '../core/device/device-document.ts';

export interface SearchRequest {
  query: string;
  /** A fixed domain (the site owner's `domain` attribute): skips routing. */
  domain?: string | null;
  k?: number;
  /** false: search the whole index, no domain filter (the loop's broader retry). */
  route?: boolean;
  /** Lexicon expansion weight override (the broader retry raises it). */
  expansionWeight?: number;
}

/** A retrieved passage widened with its section's neighbours on the same page. */
export interface ContextPassage extends RetrievedPassage {
  /** The passage's section on its page, in reading order (equals `text` when alone). */
  context: string;
}

export interface SearchResponse {
  result: Omit<SearchResult, 'hits'>;
  passages: ContextPassage[];
  timings: { embed: number; search: number };
}

/** What the loaded index is, for the UI and the `harel-chat:ready` event. */
export interface IndexInfo {
  buildId: string;
  documentCount: number;
  chunkCount: number;
  domains: string[];
  embedder: EmbedderInfo | null;
  /** How search runs now: hybrid once the index has vectors and the query embedder is in, else BM25. */
  searchMode: 'bm25' | 'hybrid';
  /** Why search is BM25-only although the index has vectors (the embedder failed to load), else null. */
  embedderError: string | null;
  /**
   * The query embedder's state. The index answers by BM25 as soon as it is loaded, and the model
   * loads after it (a 36 MB download must never hold up the first answer): 'loading' until it is
   * in ('ready': hybrid) or has failed ('failed': BM25 only, `embedderError` says why). 'none': the
   * index has no vectors. Absent from an IndexInfo made before the model loaded lazily.
   */
  embedderStatus?: EmbedderStatus;
  /**
   * The model that embeds questions (the embedder's id, or a question model tuned against its
   * passages: widget/core/embedding/query-model.ts), once chosen; absent or null before, or without vectors.
   */
  queryModel?: string | null;
  /** While 'loading': bytes of the model's files received so far, and in all (of the files begun). */
  embedderDownload?: { loaded: number; total: number } | null;
  /** Whether the index was read from IndexedDB with no download. */
  fromCache: boolean;
  /** Set when IndexedDB was unavailable or full and the index is held in memory for this session. */
  storageWarning: string | null;
  /**
   * Why the build in use is not the manifest's current one: the new build failed its integrity
   * check, or the manifest could not be fetched (offline) and a stored build answers instead.
   */
  indexError?: { code: string; message: string } | null;
  /** Where query embedding runs, null without an embedder. */
  embedderDevice?: 'webgpu' | 'wasm' | null;
  /** onnxruntime's threads for questions: more than one only where the page is cross-origin isolated. */
  embedderThreads?: number | null;
  /**
   * Once the query model is in: milliseconds from the start of its load (after the index was
   * ready) to its file in hand, its tokenizer built, its session created, its first embedding.
   */
  embedderTimings?: { files: number; tokenizer: number; session: number; probe: number } | null;
  /** The manifest's `site` block (name, contacts, starters), when the builder wrote one. */
  site?: SiteInfo | null;
  /**
   * The customer's own documents on this device, searched with the site's (issue 36), each with its
   * background embedding's progress. Absent from a service that cannot hold them.
   */
  deviceDocuments?: DeviceDocumentInfo[];
}

export type EmbedderStatus = 'none' | 'loading' | 'ready' | 'failed';

/** Whether the search mode is final: the query model is in, failed, or not needed. */
export const searchSettled = (info: Pick<IndexInfo, 'embedderStatus'>): boolean => info.embedderStatus !== 'loading';

export interface LoadIndexOptions {
  /** URL of the index's manifest.json. */
  manifestUrl: string;
  /** Where the query embedder's files live: a folder `<modelBase>/<embedder id>/…`, or null for the hub. */
  modelBase: string | null;
  /** Overrides the index's embedder id (must produce the same vectors). */
  embedder?: string | null;
  /**
   * The model that embeds questions: default the manifest's embedder.queryModel, else the
   * embedder. A question model trained against other passages is refused (QUERY_MODEL_MISMATCH):
   * search then runs on words only and says why.
   */
  queryModel?: string | null;
  /** Where onnxruntime-web's .wasm/.mjs files are served (never a CDN). */
  wasmPaths?: string;
  signal?: AbortSignal;
  onProgress?: (progress: Progress) => void;
  /**
   * After `load()` has resolved, each change of what it resolved with: the query model's download
   * progress (throttled), then hybrid, or BM25 with the reason. Not called once the load is superseded.
   */
  onInfo?: (info: IndexInfo) => void;
}

export interface SearchService {
  load(options: LoadIndexOptions): Promise<IndexInfo>;
  search(request: SearchRequest, signal?: AbortSignal): Promise<SearchResponse>;
  /** The router's best domain for `query` and its posterior (no threshold applied); null when the index has no router. */
  route(query: string): Promise<RouteResult | null>;
  /**
   * The cosine between `query`, embedded as a search embeds a question, and `text`, embedded as the
   * builder embeds a passage: how near the sentence an answer quotes lies to the question
   * (evidence.ts, semQuote). null while search is not hybrid, or when an embedding fails. Optional:
   * a service without it (the tests' doubles) leaves that evidence at 0.
   */
  similarity?(query: string, text: string, signal?: AbortSignal): Promise<number | null>;
  /**
   * Keeps a customer's document (parsed on the device: search/document-reader.ts) with its file in
   * the device's storage and searches it at once by BM25; its vectors follow in the background,
   * reported through `deviceDocuments` in the load's info updates. Throws DOCUMENT_DUPLICATE (the
   * same bytes are already added) or DOCUMENT_STORAGE_QUOTA, keeping nothing. Optional: a service
   * without it cannot hold customer documents.
   */
  addDocument?(document: ParsedDeviceDocument, file: Uint8Array, signal?: AbortSignal): Promise<DeviceDocumentInfo>;
  /** Deletes every trace of one customer document (text, vectors, file); stops its embedding. */
  removeDocument?(id: string): Promise<void>;
  /** Deletes every customer document. */
  removeAllDocuments?(): Promise<void>;
  /** The text of one page of a customer document, from the device's storage (DOCUMENT_NOT_FOUND once removed). */
  devicePage?(id: string, page: number): Promise<string>;
  dispose(): void;
}

/**
 * The methods a SearchService answers argument for argument (all but load, which reports as it
 * goes, and dispose): the search worker serves them and its client forwards them
 * (widget/workers/rpc-forward.ts), so a method is written here and in LocalSearchService only.
 * The compiler refuses this list when a method of the interface is missing from it.
 */
export const FORWARDED_METHODS = {
  search: true,
  route: true,
  similarity: true,
  addDocument: true,
  removeDocument: true,
  removeAllDocuments: true,
  devicePage: true,
} as const satisfies Record<Exclude<keyof SearchService, 'load' | 'dispose'>, true>;

export type ForwardedMethod = keyof typeof FORWARDED_METHODS;

export const forwardedMethods = Object.keys(FORWARDED_METHODS) as ForwardedMethod[];
