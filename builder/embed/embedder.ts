/**
 * Passage and query embedding in Node through transformers.js: mean pooling and normalisation,
 * as E5 expects, with the prefix (`passage: ` / `query: `) applied here so callers cannot forget it.
 */
import { createHash } from 'node:crypto';
import { pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { createError, throwIfAborted } from '../errors.ts';
import { createPipelineEncoder } from './pipeline-parts.ts';
import type { WorkOptions } from '../../widget/core/schema.ts';
import { DEFAULT_EMBEDDER, type EmbedderDtype } from './defaults.ts';
import { configuredDtype } from './local-model.ts';
import { configureTransformers } from './transformers-env.ts';

export interface Embedder {
  /** The model id, as given (e.g. 'Xenova/multilingual-e5-small'). */
  readonly id: string;
  readonly dimensions: number;
  /** The ONNX file it runs; 'q4f32'/'q4i8' are the widget's question pairs (builder/embed/widget-query-embedder.ts). */
  readonly dtype: EmbedderDtype | 'q4f32' | 'q4i8';
  /**
   * A hash of what the model makes of a fixed probe text, and of the prefix: it changes when the
   * weights, the tokenizer, the dtype or the prefix change under the same id, so caches can tell
   * stale vectors apart.
   */
  readonly fingerprint: string;
  /** Embeds texts (the prefix is added here); unit-length vectors, in the order given. */
  embed(texts: readonly string[], options?: WorkOptions): Promise<Float32Array[]>;
  /** Tokens of the model's own tokenizer for `text` as given (no prefix), special tokens included. */
  countTokens(text: string): number;
  dispose(): Promise<void>;
}

export type { EmbedderDtype } from './defaults.ts';

export interface LoadEmbedderOptions extends WorkOptions {
  /** Default 'Xenova/multilingual-e5-small'. */
  model?: string;
  /** A folder holding `<model id>/config.json, tokenizer.json, onnx/…`. */
  modelDir?: string;
  /** Download from the Hugging Face hub when the model is not in `modelDir`; default false. */
  allowRemote?: boolean;
  /** Where downloads are kept (transformers.js's default when unset). */
  cacheDir?: string;
  /**
   * Default: what the model folder's config.json names (`transformers.js_config.dtype`), else 'q8'
   * (onnx/model_quantized.onnx); 'q4' is onnx/model_q4.onnx. The widget loads the same file.
   */
  dtype?: EmbedderDtype;
  /** Prepended to every text: 'passage: ' for passages, 'query: ' for queries. Default none. */
  prefix?: string;
  /** Texts per inference call; default 16. */
  batchSize?: number;
  /** onnxruntime's intra-op threads; default 0, its own choice (one per physical core). */
  threads?: number;
}

const PROBE = 'passage: ביטוח רכב, claim within 30 days';

function describeLoadFailure(error: unknown, options: LoadEmbedderOptions): string {
  const message = error instanceof Error ? error.message : String(error);
  const missing = /not found locally at "([^"]+)"/.exec(message);
  if (missing) {
    const where = options.modelDir ? '' : ' (no --model-dir given, so transformers.js looked in its default folder)';
    return options.allowRemote ? `${missing[1]} is missing${where}` : `${missing[1]} is missing${where} and downloading is off`;
  }
  if (/fetch failed|ENOTFOUND|ECONNREFUSED|EAI_AGAIN|ETIMEDOUT/i.test(message)) {
    return `downloading it failed (${message}): the machine may be offline`;
  }
  if (/Unauthorized|401|404|Could not locate/i.test(message)) return `the hub has no such model or file (${message})`;
  return message;
}

export function fingerprintOf(vector: Float32Array, dtype: string, prefix: string): string {
  // Rounded so that last-bit differences between CPUs do not invalidate a cache.
  const rounded = Array.from(vector, (x) => Math.round(x * 1e4));
  return createHash('sha256')
    .update(JSON.stringify([dtype, prefix, rounded]))
    .digest('hex')
    .slice(0, 16);
}

export async function loadEmbedder(options: LoadEmbedderOptions = {}): Promise<Embedder> {
  const { model = DEFAULT_EMBEDDER, prefix = '', batchSize = 16, signal } = options;
  const dtype = options.dtype ?? (await configuredDtype(options.modelDir, model)) ?? 'q8';
  if (!Number.isInteger(batchSize) || batchSize < 1) throw createError('BAD_ARGUMENT', `batchSize must be a positive integer, got ${batchSize}.`);
  configureTransformers({ modelDir: options.modelDir, allowRemote: options.allowRemote ?? false, cacheDir: options.cacheDir });
  throwIfAborted(signal);
  let extractor: FeatureExtractionPipeline;
  try {
    extractor = await pipeline('feature-extraction', model, {
      dtype,
      ...(options.threads ? { session_options: { intraOpNumThreads: options.threads } } : {}),
      progress_callback: (p) => {
        if (p.status === 'progress' && p.total) {
          options.onProgress?.({ step: 'model', done: p.loaded, total: p.total, detail: p.file });
        }
      },
    });
  } catch (error) {
    throw createError('EMBEDDER_LOAD_FAILED', model, describeLoadFailure(error, options));
  }

  const encoder = createPipelineEncoder(extractor);
  const run = (texts: readonly string[], withPrefix = prefix): Promise<Float32Array[]> => encoder.encode(texts.map((t) => withPrefix + t));

  let probe: Float32Array;
  try {
    [probe] = await run([PROBE], '');
  } catch (error) {
    await extractor.dispose();
    throw createError('EMBEDDER_LOAD_FAILED', model, `it loaded but could not embed a test sentence (${error instanceof Error ? error.message : String(error)})`);
  }
  if (signal?.aborted) {
    await extractor.dispose();
    throwIfAborted(signal);
  }

  return {
    id: model,
    dimensions: probe.length,
    dtype,
    fingerprint: fingerprintOf(probe, dtype, prefix),
    async embed(texts, work = {}) {
      // Batches of similar length: a batch runs padded to its longest text, so mixing a 40-token
      // heading with a 350-token clause wastes most of the work on padding.
      const order = texts.map((t, i) => ({ i, n: t.length })).sort((a, b) => a.n - b.n);
      const out: Float32Array[] = new Array(texts.length);
      let done = 0;
      work.onProgress?.({ step: 'embed', done: 0, total: texts.length });
      for (let start = 0; start < order.length; start += batchSize) {
        throwIfAborted(work.signal);
        const batch = order.slice(start, start + batchSize);
        const vectors = await run(batch.map((b) => texts[b.i]));
        batch.forEach((b, j) => (out[b.i] = vectors[j]));
        done += batch.length;
        work.onProgress?.({ step: 'embed', done, total: texts.length });
      }
      return out;
    },
    countTokens(text) {
      return encoder.countTokens(text);
    },
    async dispose() {
      await extractor.dispose();
    },
  };
}
