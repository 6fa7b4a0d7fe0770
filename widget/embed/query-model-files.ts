/**
 * The query model's file names and the early read of a returning visitor's copy: kept apart from
 * query-embedder.ts (onnxruntime, the tokenizer) so the search worker can start that read the
 * moment it knows the index's manifest without loading the embedder's code first.
 */
import { readCachedModelFile } from './model-files.ts';
import { modelFileUrl, resolveModelLocation } from './model-location.ts';

export type QueryDtype = 'q8' | 'q4' | 'fp32' | 'q4f32' | 'q4i8';

/** The ONNX file of each precision, as transformers.js names them on the hub ('q4f32' is ours). */
export const QUERY_MODEL_FILE: Record<QueryDtype, string> = {
  q8: 'onnx/model_quantized.onnx',
  q4: 'onnx/model_q4.onnx',
  fp32: 'onnx/model.onnx',
  q4f32: 'onnx/model_q4f32.onnx',
  q4i8: 'onnx/model_q4i8.onnx',
};

/** The 4-bit weights beside a 'q4f32' or 'q4i8' graph (widget/core/embedding/q4-weights.ts), else null. */
export const q4wFileOf = (dtype: QueryDtype): string | null => (dtype === 'q4f32' || dtype === 'q4i8' ? QUERY_MODEL_FILE[dtype].replace(/\.onnx$/, '.q4w') : null);

/** Model files read early from the device's cache, by URL (`readCachedQueryModel`); null: not cached. */
export type CachedModelFiles = ReadonlyMap<string, Promise<Uint8Array | null>>;

/** The files of model `id` in precision `dtype`, as the widget reads them. */
export function queryModelFiles(dtype: QueryDtype): string[] {
  const weights = q4wFileOf(dtype);
  return ['tokenizer.json', 'tokenizer_config.json', QUERY_MODEL_FILE[dtype], ...(weights ? [weights] : [])];
}

/**
 * Starts reading the query model's files from the device's cache, never from the network: the
 * search worker calls it as soon as the index's manifest is known, so a returning visitor's
 * model is read while the index decodes. A first visit finds nothing here and downloads the
 * model only after the index answers, as before (its bytes never compete with the index's).
 */
export function readCachedQueryModel(id: string, modelBase: string | null | undefined, dtype: QueryDtype): CachedModelFiles {
  const location = resolveModelLocation(modelBase);
  const reads = new Map<string, Promise<Uint8Array | null>>();
  for (const file of queryModelFiles(dtype)) {
    const url = modelFileUrl(location, id, file);
    reads.set(
      url,
      readCachedModelFile(url).catch(() => null),
    );
  }
  return reads;
}
