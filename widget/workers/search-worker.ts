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
 * Keep every import of widget/embed/query-embedder.ts here type-only or dynamic;
 * tests/e2e/widget-bundle.spec.ts and builder/bench/js-weight.ts check it.
 */
import { createError } from '../core/errors.ts';
import type { LoadedIndex } from '../core/format/read-index.ts';
import type { IndexManifest } from '../core/format/manifest.ts';
import type { QueryEmbedder } from '../embed/query-embedder.ts';
import { fetchModelFile } from '../embed/model-files.ts';
import { modelFileUrl, resolveModelLocation } from '../embed/model-location.ts';
import { type CachedModelFiles, type QueryDtype, readCachedQueryModel } from '../embed/query-model-files.ts';
import { checkQueryModelPairing, type QueryModelConfig, queryDtypeOf, queryModelOf } from '../core/embedding/query-model.ts';
import { corpusCentroid } from '../core/retrieval/corpus-centroid.ts';
import { LocalSearchService } from '../search/local-search-service.ts';
import { forwardedMethods } from '../search/search-service.ts';
import { loadStoredIndex } from '../store/index-store.ts';
import { openDeviceStore } from '../store/device-store.ts';
import type { Progress } from '../core/schema.ts';
import type { IndexLoadInfo, LoadEvent, SearchMethods, WorkerLoadOptions } from './search-protocol.ts';
import { serializeError, serve, type WorkerScope } from './rpc.ts';
import { forwardTo } from './rpc-forward.ts';

let service: LocalSearchService | null = null;
let embedder: QueryEmbedder | null = null;
let loading: AbortController | null = null;

/** How often the model's download progress is posted: enough for a counter, not a message per chunk. */
const PROGRESS_INTERVAL_MS = 250;

/** The question model's id: the query-model attribute, else the manifest's queryModel, else the embedder (attribute or the index's). */
const queryModelFor = (info: NonNullable<IndexManifest['embedder']>, options: WorkerLoadOptions) => queryModelOf(info, options.queryModel, options.embedder ?? info.id);

/** A question model's config.json (its passage model and its file), from the model base like its other files. */
async function readQueryModelConfig(model: string, modelBase: string | null, signal: AbortSignal): Promise<QueryModelConfig> {
  const url = modelFileUrl(resolveModelLocation(modelBase), model, 'config.json');
  let bytes: Uint8Array;
  try {
    bytes = await fetchModelFile(url, { signal });
  } catch (error) {
    if (signal.aborted) throw createError('ABORTED');
    throw createError('EMBEDDER_UNAVAILABLE', model, `its config.json could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as QueryModelConfig;
  } catch {
    throw createError('EMBEDDER_UNAVAILABLE', model, `${url} is not JSON`);
  }
}

/** The embedder for the index's vectors, or why there is none (search then runs BM25-only). */
async function loadEmbedder(index: LoadedIndex, options: WorkerLoadOptions, signal: AbortSignal, onProgress: (progress: Progress) => void, cached: CachedModelFiles | undefined) {
  const info = index.manifest.embedder;
  if (!info || !index.manifest.files.vectors) return { embedder: null, embedderError: null };
  const model = queryModelFor(info, options);
  try {
    let dtype: QueryDtype = info.queryDtype ?? info.dtype ?? 'q8';
    if (model !== (options.embedder ?? info.id)) {
      // A question model of its own: its config.json says which passages it was trained against
      // (another index's: refused, and search stays on words, saying why) and which file it has.
      const config = await readQueryModelConfig(model, options.modelBase, signal);
      checkQueryModelPairing(info.id, model, config);
      dtype = queryDtypeOf<QueryDtype>(info, model, config);
    }
    const { createQueryEmbedder, forgetModelFiles } = await import('../embed/query-embedder.ts');
    const loaded = await createQueryEmbedder({
      id: model,
      modelBase: options.modelBase,
      wasmPaths: options.wasmPaths,
      queryPrefix: info.queryPrefix,
      dtype,
      cached,
      signal,
      onProgress,
    });
    if (loaded.dimensions !== info.dimensions) {
      await loaded.dispose();
      // Another model's files (or a wrong --embedder): not to be read from the cache next time either.
      await forgetModelFiles(model, options.modelBase);
      return { embedder: null, embedderError: createError('EMBEDDER_MISMATCH', info.id, `${model} (${loaded.dimensions} dimensions, the index has ${info.dimensions})`).message };
    }
    return { embedder: loaded, embedderError: null };
  } catch (error) {
    if (signal.aborted) throw createError('ABORTED');
    return { embedder: null, embedderError: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * A returning visitor's query model, read from the device's cache while the index decodes
 * (never downloaded before the index answers: widget/embed/query-embedder.ts, readCachedQueryModel).
 */
function readModelEarly(manifest: IndexManifest, options: WorkerLoadOptions): CachedModelFiles | undefined {
  const info = manifest.embedder;
  if (!info || !manifest.files.vectors) return undefined;
  // A question model of its own names its file in its config.json, read only once the index is in.
  if (queryModelFor(info, options) !== (options.embedder ?? info.id)) return undefined;
  return readCachedQueryModel(options.embedder ?? info.id, options.modelBase, info.queryDtype ?? info.dtype ?? 'q8');
}

/**
 * Resolves once the index answers (the load's reply); the query model then loads in the
 * background, its news pushed through `emit` until `settled` (which may reject once nobody listens).
 */
async function load(options: WorkerLoadOptions, signal: AbortSignal, emit: (event: LoadEvent) => void): Promise<{ info: IndexLoadInfo; afterReady: () => Promise<void> }> {
  let early: CachedModelFiles | undefined;
  const stored = await loadStoredIndex({
    manifestUrl: options.manifestUrl,
    signal,
    onProgress: (progress) => emit({ progress }),
    onManifest: (manifest) => {
      early ??= readModelEarly(manifest, options);
    },
  });
  const manifest = stored.index.manifest;
  const wantsModel = Boolean(manifest.embedder && (stored.index.vectors || stored.readVectors));
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
    const queryModel = info && wantsModel ? queryModelFor(info, options) : null;
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
    if (wantsModel) await loadModel(stored, fresh, options, signal, cached, emit, report);
  };
  return { info: report(), afterReady };
}

/** The query model of a loaded index, after its ready: search turns hybrid, or stays BM25 and says why. */
async function loadModel(
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
  const next = await loadEmbedder(
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
  const questionOnly = passages !== null && queryModelFor(passages, options) !== (options.embedder ?? passages.id);
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
