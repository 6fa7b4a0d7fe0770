/**
 * Query embedding in the browser: the model folder's tokenizer (widget/embed/query-tokenizer.ts)
 * and ONNX file (widget/embed/onnx-encoder.ts) through the builder's own windowed encoder
 * (widget/core/embedding/windowed-encoder.ts): the manifest's query prefix, mean pooling,
 * normalisation, windows for a text over 512 tokens. A question and a passage of the same text
 * meet at cosine 1.
 */
import { createError, throwIfAborted } from '../core/errors.ts';
import { expandQ4Weights } from '../core/embedding/q4-weights.ts';
import { createWindowedEncoder } from '../core/embedding/windowed-encoder.ts';
import type { WorkOptions } from '../core/schema.ts';
import { fetchModelFile, forgetCachedFiles } from './model-files.ts';
import { type CachedModelFiles, type QueryDtype, queryModelFiles } from './query-model-files.ts';
import { modelFileUrl, resolveModelLocation, resolveWasmPaths } from './model-location.ts';
import { configureOnnxRuntime, createOnnxEncoder } from './onnx-encoder.ts';
import { createQueryTokenizer } from './query-tokenizer.ts';

export { MODEL_CACHE } from './model-files.ts';
export { type CachedModelFiles, QUERY_MODEL_FILE, type QueryDtype, q4wFileOf, readCachedQueryModel } from './query-model-files.ts';

/** Where query embedding runs: onnxruntime's wasm (onnx-encoder.ts says why never WebGPU). */
export type EmbedDevice = 'wasm';

export interface QueryEmbedderOptions extends WorkOptions {
  /** Model id, e.g. 'Xenova/multilingual-e5-small' or 'fixture/tiny-embedder'. */
  id: string;
  /** Absolute URL of the folder holding `<id>/config.json, tokenizer.json, onnx/…`; null or absent: the Hugging Face hub. */
  modelBase?: string | null;
  /** Absolute URL of the folder where the app serves onnxruntime-web's .wasm/.mjs files (never a CDN). */
  wasmPaths: string;
  /** The index's model file (manifest embedder.queryDtype, else dtype): 'q8' (default), 'q4', 'fp32', 'q4f32' or 'q4i8'. */
  dtype?: QueryDtype;
  /** The index's query prefix (manifest embedder.queryPrefix); default 'query: '. */
  queryPrefix?: string;
  /** Files already being read from the device's cache (`readCachedQueryModel`). */
  cached?: CachedModelFiles;
}

/** Milliseconds from the start of the load to each step's end (they overlap: see createQueryEmbedder). */
export interface QueryEmbedderTimings {
  /** The model file's bytes in hand (cache or network). */
  files: number;
  /** The tokenizer built (its files in hand first). */
  tokenizer: number;
  /** onnxruntime's wasm started and the session created. */
  session: number;
  /** One test query embedded: the embedder is ready. */
  probe: number;
}

export interface QueryEmbedder {
  readonly id: string;
  /** Where the load's time went. */
  readonly timings: QueryEmbedderTimings;
  readonly device: EmbedDevice;
  /** onnxruntime's threads: more than one only on a cross-origin isolated page (onnx-encoder.ts). */
  readonly threads: number;
  readonly dimensions: number;
  /** A unit vector for the query, the prefix added here. */
  embed(query: string): Promise<Float32Array>;
  /** A unit vector for text that already carries its prefix. */
  embedText(text: string): Promise<Float32Array>;
  dispose(): Promise<void>;
}

/** The URL prefix of every file of model `id` under `modelBase` (or the hub), as they are fetched and cached. */
export function modelFolderUrl(id: string, modelBase: string | null | undefined): string {
  return modelFileUrl(resolveModelLocation(modelBase), id, '');
}

/**
 * Removes model `id`'s files from the device's cache: a truncated file, a web page answering a
 * model URL, or another model's file would otherwise fail every later visit too, even once the
 * site serves the right one.
 */
export function forgetModelFiles(id: string, modelBase: string | null | undefined): Promise<number> {
  return forgetCachedFiles(modelFolderUrl(id, modelBase));
}

const decodeJson = (bytes: Uint8Array, file: string): unknown => {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new Error(`${file} is not JSON`);
  }
};

/** The highest token id of a tokenizer.json (its vocabulary and added tokens), null if it says none. */
function lastTokenId(spec: unknown): number | null {
  const { model, added_tokens } = (spec ?? {}) as { model?: { vocab?: unknown }; added_tokens?: { id?: unknown }[] };
  const vocab = model?.vocab;
  const ids = Array.isArray(vocab) ? [vocab.length - 1] : vocab && typeof vocab === 'object' ? Object.values(vocab) : [];
  if (Array.isArray(added_tokens)) ids.push(...added_tokens.map((t) => t?.id));
  let last = -1;
  for (const id of ids) if (Number.isSafeInteger(id) && (id as number) > last) last = id as number;
  return last >= 0 ? last : null;
}

export async function createQueryEmbedder(options: QueryEmbedderOptions): Promise<QueryEmbedder> {
  const { id, signal, onProgress, dtype = 'q8', queryPrefix = 'query: ' } = options;
  const location = resolveModelLocation(options.modelBase);
  const files = queryModelFiles(dtype);
  // Bytes over all the model's files, not per file: a counter that restarted with each file
  // would read as a download going backwards.
  const progress = new Map<string, { loaded: number; total: number }>();
  const report = (file: string, loaded: number, total: number) => {
    progress.set(file, { loaded, total: Math.max(total, loaded) });
    let done = 0;
    let all = 0;
    for (const p of progress.values()) {
      done += p.loaded;
      all += p.total;
    }
    onProgress?.({ step: 'model', done, total: all, detail: file });
  };
  const timings: QueryEmbedderTimings = { files: 0, tokenizer: 0, session: 0, probe: 0 };
  try {
    const threads = configureOnnxRuntime(resolveWasmPaths(options.wasmPaths));
    const started = performance.now();
    const [tokenizerJson, tokenizerConfig, model, weights] = files.map(async (file) => {
      const url = modelFileUrl(location, id, file);
      const early = await options.cached?.get(url);
      if (early) {
        report(file, early.byteLength, early.byteLength);
        return early;
      }
      return fetchModelFile(url, { signal, onBytes: (loaded, total) => report(file, loaded, total) });
    });
    // Each is awaited below; marked handled so one failing first leaves no stray rejection behind.
    for (const file of [tokenizerJson, tokenizerConfig, model, weights]) file?.catch(() => undefined);
    // The session starts as soon as the model's bytes are in: onnxruntime compiles its wasm on
    // background threads meanwhile, while this thread builds the tokenizer (a trie over 121k
    // pieces, a few hundred milliseconds), instead of one after the other.
    const session = model.then(async (bytes) => {
      timings.files = performance.now() - started;
      throwIfAborted(signal);
      const externalData = weights ? expandQ4Weights(await weights) : undefined;
      if (externalData) timings.files = performance.now() - started;
      const onnx = await createOnnxEncoder(bytes, { externalData: externalData ? { path: externalData.location, data: externalData.data } : undefined });
      timings.session = performance.now() - started;
      return onnx;
    });
    session.catch(() => undefined);
    const tokenizerSpec = decodeJson(await tokenizerJson, 'tokenizer.json');
    const tokenizer = createQueryTokenizer(tokenizerSpec, decodeJson(await tokenizerConfig, 'tokenizer_config.json'));
    timings.tokenizer = performance.now() - started;
    const onnx = await session;
    const encoder = createWindowedEncoder({ ...tokenizer, run: onnx.run }, { firstWindowOnly: true });
    let probe: Float32Array;
    try {
      // Proven by one embedding: a file can load and still fail to run (a wrong input, an operator the build lacks).
      probe = (await encoder.encode([queryPrefix]))[0];
      // Another model's file (a smaller vocabulary) runs the probe and then fails on a question's
      // rarer pieces: its table must hold the tokenizer's last id (found by the model-file fuzzer).
      const last = lastTokenId(tokenizerSpec);
      if (last !== null) await onnx.run(BigInt64Array.of(BigInt(tokenizer.special.bos), BigInt(last), BigInt(tokenizer.special.eos)), BigInt64Array.of(1n, 1n, 1n), 1, 3);
      timings.probe = performance.now() - started;
    } catch (error) {
      await onnx.dispose().catch(() => undefined);
      throw new Error(`it loaded but could not embed a test query (${error instanceof Error ? error.message : String(error)})`);
    }
    if (signal?.aborted) {
      await onnx.dispose();
      throwIfAborted(signal);
    }
    const run = async (text: string): Promise<Float32Array> => (await encoder.encode([text]))[0];
    return {
      id,
      device: 'wasm',
      threads,
      dimensions: probe.length,
      embed: (query) => run(queryPrefix + query),
      embedText: run,
      timings,
      dispose: onnx.dispose,
    };
  } catch (error) {
    if (signal?.aborted) throw createError('ABORTED');
    await forgetModelFiles(id, options.modelBase);
    throw createError('EMBEDDER_UNAVAILABLE', id, error instanceof Error ? error.message : String(error));
  }
}
