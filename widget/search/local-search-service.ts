/**
 * The in-thread SearchService: a LoadedIndex, the shared Retriever and an optional query embedder,
 * with no DOM or worker API. Node tests and evals use it directly; the search worker wraps it.
 */
import { createError, throwIfAborted } from '../core/errors.ts';
import type { LoadedIndex } from '../core/format/read-index.ts';
import { Retriever, type RetrievedPassage } from '../core/retrieval/retriever.ts';
import type { RouteResult } from '../core/retrieval/route.ts';
import type { ContextPassage, EmbedderStatus, IndexInfo, LoadIndexOptions, SearchRequest, SearchResponse, SearchService } from './search-service.ts';
import type { DeviceDocumentInfo, ParsedDeviceDocument } from '../core/device/device-document.ts';
import { memoryDeviceStore, type DeviceStore } from '../store/device-store.ts';
import { DeviceCollection, type PassageEmbedder } from './device-collection.ts';

/** Embeds a query already carrying the embedder's query prefix; null when no embedding is available. */
export type QueryEmbedder = (prefixedQuery: string, signal?: AbortSignal) => Promise<Float32Array | null>;

/** How `load()` obtains the index (Node reads a folder; the worker its IndexedDB store or the network). */
export type IndexLoader = (options: LoadIndexOptions) => Promise<{ index: LoadedIndex; fromCache: boolean; storageWarning?: string | null }>;

export interface LocalSearchOptions {
  loader?: IndexLoader;
  embedQuery?: QueryEmbedder | null;
  /** Why the embedder is missing although the index has vectors (reported in IndexInfo). */
  embedderError?: string | null;
  /** The embedder is still loading: search runs BM25 until `setQueryEmbedder()` brings it (or its failure). */
  embedderLoading?: boolean;
  /** Where the customer's own documents are kept (the worker: IndexedDB); default in memory for this service's life. */
  deviceStore?: DeviceStore;
  /** The customer's documents changed: one was added or removed, or embedded further (the worker reports it). */
  onDeviceChange?: () => void;
}

/**
 * How long after a request the customer documents' background embedding waits before its next
 * chunk: one answer's requests (search, then the quote's similarity) come within this of each
 * other, and a chunk's embedding, once begun, holds the worker for up to a second on one thread.
 */
export const QUIET_MS = 400;

/** Default number of passages a search returns. */
export const DEFAULT_K = 10;
/** Character budget of a passage's widened context: enough for a clause, small enough for an LLM prompt. */
export const CONTEXT_CHARS = 1800;
const MIN_OVERLAP = 20;

/** Joins two consecutive chunks, dropping the overlap the chunker repeats at their seam. */
export function joinOverlapping(a: string, b: string): string {
  const max = Math.min(a.length, b.length, 600);
  for (let len = max; len >= MIN_OVERLAP; len--) {
    if (a.endsWith(b.slice(0, len))) return a + b.slice(len);
  }
  return `${a}\n${b}`;
}

export class LocalSearchService implements SearchService {
  private index: LoadedIndex | null = null;
  private retriever: Retriever | null = null;
  private fromCache = false;
  private storageWarning: string | null = null;
  private readonly options: LocalSearchOptions;
  /** The query embedder, which may arrive after the index (the search worker loads it second). */
  private embedQuery: QueryEmbedder | null;
  private embedderError: string | null;
  private embedderLoading: boolean;
  private embedderDownload: { loaded: number; total: number } | null = null;
  /** The latest search's question vector: the quote's similarity to it follows that search at once. */
  private lastQuery: { text: string; vector: Float32Array } | null = null;
  /** The customer's own documents, searched beside the index (issue 36). */
  private devices: DeviceCollection | null = null;
  /** Requests being answered, and when the last one ended: the customer documents' embedding waits for a quiet moment. */
  private active = 0;
  private lastActive = 0;

  constructor(options: LocalSearchOptions = {}) {
    this.options = options;
    this.embedQuery = options.embedQuery ?? null;
    this.embedderError = options.embedderError ?? null;
    this.embedderLoading = Boolean(options.embedderLoading) && !this.embedQuery;
  }

  /** The embedder has loaded (searches from now on are hybrid), or failed with `error` (they stay BM25). */
  setQueryEmbedder(embedQuery: QueryEmbedder | null, error: string | null = null): void {
    this.embedQuery = embedQuery;
    this.embedderError = embedQuery ? null : error;
    this.embedderLoading = false;
    this.embedderDownload = null;
  }

  /** The embedder's download so far, reported in `info()` while it loads. */
  setEmbedderDownload(download: { loaded: number; total: number } | null): void {
    if (this.embedderLoading) this.embedderDownload = download;
  }

  /** A service over an index already in memory (tests, evals): `load()` then only reports on it. */
  static fromIndex(index: LoadedIndex, options: Omit<LocalSearchOptions, 'loader'> = {}): LocalSearchService {
    const service = new LocalSearchService(options);
    service.use(index, false);
    return service;
  }

  private use(index: LoadedIndex, fromCache: boolean): void {
    this.index = index;
    const retriever = new Retriever(index);
    this.retriever = retriever;
    this.fromCache = fromCache;
    this.devices?.dispose();
    this.devices = new DeviceCollection({
      store: this.options.deviceStore ?? memoryDeviceStore(),
      idle: () => this.quiet(),
      onChange: (part) => {
        if (this.retriever !== retriever) return;
        retriever.setDevice(part);
        this.options.onDeviceChange?.();
      },
    });
    // Without vectors in the index there is nothing to embed a customer's document against.
    if (!index.manifest.embedder || !index.manifest.files.vectors) this.devices.setEmbedder(null, { status: 'none' });
  }

  /**
   * The site's passage embedder for the customer's documents, or why there is none (they are then
   * searched by BM25 alone). The worker gives it once the query model is in, and only when that
   * model embeds passages as the index's were (not a question-only model).
   */
  setPassageEmbedder(embedder: PassageEmbedder | null, reason: string | null = null): void {
    if (!this.index?.manifest.embedder || !this.index.manifest.files.vectors) return;
    this.devices?.setEmbedder(embedder, { status: 'failed', ...(reason ? { reason } : {}) });
  }

  /** Reads the customer's documents kept on this device, so that the first answer already searches them. */
  async restoreDocuments(): Promise<void> {
    await this.devices?.restore();
  }

  async addDocument(document: ParsedDeviceDocument, file: Uint8Array, signal?: AbortSignal): Promise<DeviceDocumentInfo> {
    return this.requireDevices().add(document, file, signal);
  }

  async removeDocument(id: string): Promise<void> {
    await this.requireDevices().remove(id);
  }

  async removeAllDocuments(): Promise<void> {
    await this.requireDevices().removeAll();
  }

  async devicePage(id: string, page: number): Promise<string> {
    return this.requireDevices().page(id, page);
  }

  private requireDevices(): DeviceCollection {
    this.requireIndex();
    return this.devices!;
  }

  async load(options: LoadIndexOptions): Promise<IndexInfo> {
    if (this.options.loader) {
      const loaded = await this.options.loader(options);
      throwIfAborted(options.signal);
      this.use(loaded.index, loaded.fromCache);
      this.storageWarning = loaded.storageWarning ?? null;
    }
    return this.info();
  }

  info(): IndexInfo & { deviceDocuments: DeviceDocumentInfo[] } {
    const index = this.requireIndex();
    const { manifest } = index;
    // A stored build's vectors may still be on their way (index-store.ts, readVectors): the
    // manifest says whether the index has them.
    const vectors = manifest.embedder !== null && (index.vectors !== null || manifest.files.vectors !== undefined);
    const hybrid = vectors && index.vectors !== null && Boolean(this.embedQuery);
    const status: EmbedderStatus = !vectors ? 'none' : hybrid ? 'ready' : this.embedderLoading ? 'loading' : 'failed';
    return {
      buildId: manifest.buildId,
      documentCount: index.documents.length,
      chunkCount: index.chunks.length,
      domains: Object.keys(manifest.counts.byDomain).sort(),
      embedder: manifest.embedder,
      searchMode: hybrid ? 'hybrid' : 'bm25',
      embedderError: status === 'failed' ? (this.embedderError ?? 'no query embedder') : null,
      embedderStatus: status,
      embedderDownload: status === 'loading' ? this.embedderDownload : null,
      fromCache: this.fromCache,
      storageWarning: this.storageWarning,
      site: manifest.site ?? null,
      deviceDocuments: this.devices?.infos() ?? [],
    };
  }

  /** Resolves once no request has been answered for QUIET_MS (a question's search and its quote's similarity come in a burst). */
  private async quiet(): Promise<void> {
    for (;;) {
      const wait = this.active > 0 ? QUIET_MS : this.lastActive + QUIET_MS - performance.now();
      if (wait <= 0) return;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  /** Runs one request counted as activity (quiet()). */
  private async busy<T>(work: () => Promise<T>): Promise<T> {
    this.active++;
    try {
      return await work();
    } finally {
      this.active--;
      this.lastActive = performance.now();
    }
  }

  search(request: SearchRequest, signal?: AbortSignal): Promise<SearchResponse> {
    return this.busy(() => this.searchNow(request, signal));
  }

  private async searchNow(request: SearchRequest, signal?: AbortSignal): Promise<SearchResponse> {
    throwIfAborted(signal);
    const index = this.requireIndex();
    const retriever = this.retriever!;
    let embed = 0;
    let queryVector: Float32Array | null = null;
    const embedQuery = this.embedQuery;
    if (embedQuery && index.vectors && index.manifest.embedder) {
      const t0 = performance.now();
      // A failed embedding costs this one question its vectors, not the customer the answer: BM25 ranks it.
      queryVector = await embedQuery(index.manifest.embedder.queryPrefix + request.query, signal).catch(() => null);
      if (queryVector) this.lastQuery = { text: request.query, vector: queryVector };
      embed = performance.now() - t0;
      throwIfAborted(signal);
    }
    const t1 = performance.now();
    const { hits, ...result } = retriever.search(request.query, {
      k: request.k ?? DEFAULT_K,
      domain: request.domain ?? null,
      route: request.route,
      queryVector,
      ...(request.expansionWeight !== undefined ? { expansionWeight: request.expansionWeight } : {}),
    });
    const passages = hits.map((hit) => this.withContext(hit));
    return { result, passages, timings: { embed, search: performance.now() - t1 } };
  }

  similarity(query: string, text: string, signal?: AbortSignal): Promise<number | null> {
    return this.busy(() => this.similarityNow(query, text, signal));
  }

  private async similarityNow(query: string, text: string, signal?: AbortSignal): Promise<number | null> {
    throwIfAborted(signal);
    const index = this.requireIndex();
    const embedQuery = this.embedQuery;
    const embedder = index.manifest.embedder;
    if (!embedQuery || !index.vectors || !embedder) return null;
    const question = this.lastQuery?.text === query ? this.lastQuery.vector : await embedQuery(embedder.queryPrefix + query, signal).catch(() => null);
    const passage = question && (await embedQuery(embedder.passagePrefix + text, signal).catch(() => null));
    throwIfAborted(signal);
    if (!question || !passage) return null;
    // Both vectors are unit length (E5's pooling normalises): the dot product is the cosine.
    let dot = 0;
    for (let i = 0; i < question.length; i++) dot += question[i] * passage[i];
    return dot;
  }

  async route(query: string): Promise<RouteResult | null> {
    this.requireIndex();
    return this.retriever!.route(query);
  }

  /** The hit's section on its page, grown around the hit (nearest neighbours first) up to CONTEXT_CHARS. */
  private withContext(hit: RetrievedPassage): ContextPassage {
    const siblings = this.retriever!.expandToParent(hit.chunk);
    const at = siblings.findIndex((c) => c.id === hit.chunkId);
    if (at < 0 || siblings.length === 1) return { ...hit, context: hit.text };
    let lo = at;
    let hi = at;
    let size = hit.text.length;
    while (lo > 0 || hi < siblings.length - 1) {
      const before = lo > 0 ? siblings[lo - 1].text.length : Infinity;
      const after = hi < siblings.length - 1 ? siblings[hi + 1].text.length : Infinity;
      const grow = Math.min(before, after);
      if (size + grow > CONTEXT_CHARS) break;
      if (after <= before) hi++;
      else lo--;
      size += grow;
    }
    let context = siblings[lo].text;
    for (let i = lo + 1; i <= hi; i++) context = joinOverlapping(context, siblings[i].text);
    return { ...hit, context };
  }

  private requireIndex(): LoadedIndex {
    if (!this.index) throw createError('INDEX_NOT_FOUND', 'search service (load() was not called)');
    return this.index;
  }

  dispose(): void {
    this.devices?.dispose();
    this.devices = null;
    this.index = null;
    this.retriever = null;
    this.lastQuery = null;
  }
}
