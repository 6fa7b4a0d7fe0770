/**
 * The search Web Worker: loads the index through the IndexedDB store, loads the query embedder,
 * and answers searches, so restoring Orama and scoring never block the page's typing.
 *
 * The index is reported ready (and answers by BM25) before the query model is even asked for:
 * the model (36 MB for E5, a first visit's largest download) loads after it, in the background,
 * and searches turn hybrid once it is in. Its progress, then hybrid or the reason search stays
 * BM25, reach the page as `info` events on the load's call (widget/workers/rpc.ts), after its reply.
 *
 * The embedder (onnxruntime-web and the tokenizer, most of this worker's code by weight) is
 * imported only when the index has vectors: a BM25-only index never fetches it, nor its wasm.
 * Which question model, and its cached files, is query-model-load.ts, imported the same way, once
 * a manifest names an embedder. Keep every import of both here type-only or dynamic;
 * tests/e2e/widget-bundle.spec.ts and builder/bench/js-weight.ts check it.
 */
import { createError } from '../core/errors.ts';
import type { IndexManifest } from '../core/format/manifest.ts';
import type { QueryEmbedder } from '../embed/query-embedder.ts';
import type { CachedModelFiles } from '../embed/query-model-files.ts';
import { corpusCentroid } from '../core/retrieval/corpus-centroid.ts';
import { LocalSearchService } from '../search/local-search-service.ts';
import { forwardedMethods } from '../search/search-service.ts';
import { loadStoredIndex } from '../store/index-store.ts';
import { openDeviceStore } from '../store/device-store.ts';
import type { IndexLoadInfo, LoadEvent, SearchMethods, WorkerLoadOptions } from './search-protocol.ts';
import { serializeError, serve, type WorkerScope } from './rpc.ts';
import { forwardTo } from './rpc-forward.ts';

/** query-model-load.ts, imported once a manifest names an embedder (never for a BM25-only index). */
type QueryModelLoad = typeof import('./query-model-load.ts');
const importQueryModelLoad = (): Promise<QueryModelLoad> => import('./query-model-load.ts');
/** Whether an index of this manifest searches with vectors, so that its question model loads. */
const hasVectors = (manifest: IndexManifest): boolean => Boolean(manifest.embedder && manifest.files.vectors);

let service: LocalSearchService | null = null;
let embedder: QueryEmbedder | null = null;
let loading: AbortController | null = null;

/** How often the model's download progress is posted: enough for a counter, not a message per chunk. */
const PROGRESS_INTERVAL_MS = 250;

/**
 * Resolves once the index answers (the load's reply); the query model then loads in the
 * background, its news pushed through `emit` until `settled` (which may reject once nobody listens).
 */
async function load(options: WorkerLoadOptions, signal: AbortSignal, emit: (event: LoadEvent) => void): Promise<{ info: IndexLoadInfo; afterReady: () => Promise<void> }> {
  let early: Promise<CachedModelFiles | undefined> | undefined;
  let models: Promise<QueryModelLoad> | undefined;
  const stored = await loadStoredIndex({
    manifestUrl: options.manifestUrl,
    signal,
    onProgress: (progress) => emit({ progress }),
    onManifest: (manifest) => {
      if (!hasVectors(manifest) || early) return;
      models = importQueryModelLoad();
      early = models.then(
        (m) => m.readModelEarly(manifest, options),
        () => undefined,
      );
    },
  });
  const manifest = stored.index.manifest;
  const wantsModel = Boolean(manifest.embedder && (stored.index.vectors || stored.readVectors));
  // A chunk that cannot be fetched (offline, before it was ever cached) costs hybrid search, not the index: BM25 answers, saying why.
  let modelsError: string | null = null;
  const queryModels = wantsModel
    ? await (models ??= importQueryModelLoad()).catch((error: unknown) => {
        modelsError = serializeError(error).message;
        return null;
      })
    : null;
  const { store: deviceStore } = await openDeviceStore();
  // Reported once the index is ready (its reply posted): every change to the customer's documents reaches the page as info.
  let ready = false;
  const fresh = new LocalSearchService({
    loader: async () => stored,
    embedderLoading: wantsModel,
    deviceStore,
    onDeviceChange: () => {
      if (ready && service === fresh) emit({ info: report() });
    },
  });
  await fresh.load({ manifestUrl: options.manifestUrl, modelBase: options.modelBase, signal });
  // The customer's documents kept on this device answer from the first question on (a failed read costs them, not the site's answers).
  await fresh.restoreDocuments().catch(() => undefined);
  service?.dispose();
  await embedder?.dispose().catch(() => undefined);
  service = fresh;
  embedder = null;
  const report = (): IndexLoadInfo => {
    const current = embedder && service === fresh ? embedder : null;
    const info = stored.index.manifest.embedder;
    const queryModel = info && queryModels ? queryModels.queryModelFor(info, options) : null;
    return {
      ...fresh.info(),
      queryModel,
      indexError: stored.indexError,
      embedderDevice: current?.device ?? null,
      embedderThreads: current?.threads ?? null,
      embedderTimings: current ? { ...current.timings } : null,
    };
  };
  // The index answers from here on, by BM25 until the model is in.
  const cached = early;
  early = undefined;
  const afterReady = async () => {
    ready = true;
    if (queryModels) await loadModel(queryModels, stored, fresh, options, signal, await cached, emit, report);
    else if (wantsModel) {
      fresh.setQueryEmbedder(null, modelsError);
      emit({ info: report() });
    }
  };
  return { info: report(), afterReady };
}

/** The query model of a loaded index, after its ready: search turns hybrid, or stays BM25 and says why. */
async function loadModel(
  queryModels: QueryModelLoad,
  stored: Awaited<ReturnType<typeof loadStoredIndex>>,
  fresh: LocalSearchService,
  options: WorkerLoadOptions,
  signal: AbortSignal,
  cached: CachedModelFiles | undefined,
  emit: (event: LoadEvent) => void,
  report: () => IndexLoadInfo,
): Promise<void> {
  // A stored build's vectors are checked and decoded now, beside the model's load: a bad file
  // costs hybrid search, never the answers BM25 gives meanwhile.
  const vectorsRead = stored.readVectors
    ? stored.readVectors().then(
        (table): string | null => {
          stored.index.vectors = table;
          return null;
        },
        (error: unknown) => serializeError(error).message,
      )
    : Promise.resolve(null);
  let lastPost = 0;
  const next = await queryModels.loadEmbedder(
    stored.index,
    options,
    signal,
    (progress) => {
      fresh.setEmbedderDownload(progress.total ? { loaded: progress.done, total: progress.total } : null);
      const now = performance.now();
      if (now - lastPost < PROGRESS_INTERVAL_MS && progress.done !== progress.total) return;
      lastPost = now;
      emit({ info: report() });
    },
    cached,
  );
  const vectorsError = await vectorsRead;
  if (service !== fresh || signal.aborted) {
    // A newer load took over while the model loaded: it is not this index's any more.
    await next.embedder?.dispose().catch(() => undefined);
    throw createError('ABORTED');
  }
  // Without its vectors the model has nothing to search: search stays BM25, and says why.
  if (vectorsError) await next.embedder?.dispose().catch(() => undefined);
  const loaded = vectorsError ? null : next.embedder;
  // The corpus's mean direction (30 ms at 15k chunks), which a hybrid question's off-topic evidence
  // reads: computed as search turns hybrid, not on the first hybrid question, and never in the
  // way of the BM25 answers given meanwhile.
  if (loaded && stored.index.vectors) corpusCentroid(stored.index.vectors);
  const embedText = loaded ? loaded.embedText : null;
  // A failed embedding costs that one query its vectors, not the customer their answer.
  fresh.setQueryEmbedder(embedText ? (text) => embedText(text).catch(() => null) : null, vectorsError ?? next.embedderError);
  embedder = loaded;
  // The customer's documents are embedded with the model that embedded the site's passages; a
  // question-only model (query-model) embeds no passage, and they stay on BM25. Given once
  // `embedder` is set: the info it may post already names the device the model runs on.
  const passages = stored.index.manifest.embedder;
  const questionOnly = passages !== null && queryModels.queryModelFor(passages, options) !== (options.embedder ?? passages.id);
  if (embedText && passages && !questionOnly) {
    fresh.setPassageEmbedder({ id: passages.id, dim: passages.dimensions, prefix: passages.passagePrefix, embed: (text) => embedText(text).catch(() => null) });
  } else {
    fresh.setPassageEmbedder(null, questionOnly ? 'the question model embeds questions only' : (vectorsError ?? next.embedderError));
  }
  emit({ info: report() });
}

/** The loaded index; INDEX_NOT_READY before any load. */
function loadedIndex(): LocalSearchService {
  if (!service) throw createError('INDEX_NOT_READY');
  return service;
}

serve<SearchMethods>(self as unknown as WorkerScope, {
  async load(options, { signal, emit, afterReply }) {
    // A newer load replaces an older one still running, its query model's load included.
    loading?.abort();
    const controller = (loading = new AbortController());
    signal.addEventListener('abort', () => controller.abort(), { once: true });
    const aborted = (error: unknown) => (controller.signal.aborted ? createError('ABORTED') : error);
    try {
      const { info, afterReady } = await load(options, controller.signal, emit);
      afterReply(afterReady);
      return info;
    } catch (error) {
      throw aborted(error);
    }
  },
  ...forwardTo(loadedIndex, forwardedMethods),
});
