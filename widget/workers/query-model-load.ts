/**
 * The search worker's part that only an index with vectors needs: which question model, its
 * config.json, the files a returning visitor has cached, and the embedder's load. Imported by
 * search-worker.ts only once a manifest names an embedder, so a BM25-only index's first visit
 * fetches none of it (builder/bench/js-weight.ts measures that visit).
 */
import { createError } from '../core/errors.ts';
import type { LoadedIndex } from '../core/format/read-index.ts';
import type { IndexManifest } from '../core/format/manifest.ts';
import type { Progress } from '../core/schema.ts';
import { checkQueryModelPairing, type QueryModelConfig, queryDtypeOf, queryModelOf } from '../core/embedding/query-model.ts';
import { fetchModelFile } from '../embed/model-files.ts';
import { modelFileUrl, resolveModelLocation } from '../embed/model-location.ts';
import { type CachedModelFiles, type QueryDtype, readCachedQueryModel } from '../embed/query-model-files.ts';
import type { WorkerLoadOptions } from './search-protocol.ts';

/** The question model's id: the query-model attribute, else the manifest's queryModel, else the embedder (attribute or the index's). */
export const queryModelFor = (info: NonNullable<IndexManifest['embedder']>, options: WorkerLoadOptions) => queryModelOf(info, options.queryModel, options.embedder ?? info.id);

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
export async function loadEmbedder(index: LoadedIndex, options: WorkerLoadOptions, signal: AbortSignal, onProgress: (progress: Progress) => void, cached: CachedModelFiles | undefined) {
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
export function readModelEarly(manifest: IndexManifest, options: WorkerLoadOptions): CachedModelFiles | undefined {
  const info = manifest.embedder;
  if (!info || !manifest.files.vectors) return undefined;
  // A question model of its own names its file in its config.json, read only once the index is in.
  if (queryModelFor(info, options) !== (options.embedder ?? info.id)) return undefined;
  return readCachedQueryModel(options.embedder ?? info.id, options.modelBase, info.queryDtype ?? info.dtype ?? 'q8');
}
