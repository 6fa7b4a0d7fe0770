/**
 * Passage and query embedding in Node through transformers.js: mean pooling and normalisation,
 * as E5 expects, with the prefix (`passage: ` / `query: `) applied here so callers cannot forget it.
 */
import { pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { createError, throwIfAborted } from '../../widget/core/errors.ts';
import type { WorkOptions } from '../../widget/core/schema.ts';
import { configureTransformers } from './transformers-env.ts';

export interface Embedder {
  readonly id: string;
  readonly dimensions: number;
  /** Embeds texts (the prefix is added here); unit-length vectors. */
  embed(texts: readonly string[], options?: WorkOptions): Promise<Float32Array[]>;
  /** Tokens of the model's own tokenizer, special tokens included: what the chunker bounds. */
  countTokens(text: string): number;
  dispose(): Promise<void>;
}

export interface LoadEmbedderOptions extends WorkOptions {
  model: string;
  modelDir?: string;
  allowRemote?: boolean;
  dtype?: 'fp32' | 'q8';
  prefix?: string;
  batchSize?: number;
}

function describeLoadFailure(error: unknown, options: LoadEmbedderOptions): string {
  const message = error instanceof Error ? error.message : String(error);
  if (!options.allowRemote && /local|not found|Could not locate|ENOENT|404/i.test(message)) {
    return options.modelDir
      ? `not found under ${options.modelDir}/${options.model} and downloading is off`
      : 'no --model-dir given and downloading is off';
  }
  return message;
}

export async function loadEmbedder(options: LoadEmbedderOptions): Promise<Embedder> {
  const { model, prefix = '', batchSize = 16 } = options;
  configureTransformers({ modelDir: options.modelDir, allowRemote: options.allowRemote ?? false });
  throwIfAborted(options.signal);
  let extractor: FeatureExtractionPipeline;
  try {
    extractor = (await pipeline('feature-extraction', model, {
      dtype: options.dtype ?? 'q8',
      progress_callback: (p: { status: string; file?: string; loaded?: number; total?: number }) => {
        if (p.status === 'progress' && p.total) {
          options.onProgress?.({ step: 'model', done: p.loaded ?? 0, total: p.total, detail: p.file });
        }
      },
    })) as FeatureExtractionPipeline;
  } catch (error) {
    throw createError('EMBEDDER_LOAD_FAILED', model, describeLoadFailure(error, options));
  }

  const run = async (texts: readonly string[]): Promise<Float32Array[]> => {
    const output = await extractor(texts.map((t) => prefix + t), { pooling: 'mean', normalize: true });
    const [rows, dim] = output.dims as [number, number];
    const data = output.data as Float32Array;
    return Array.from({ length: rows }, (_, i) => data.slice(i * dim, (i + 1) * dim));
  };
  const [probe] = await run(['']);

  return {
    id: model,
    dimensions: probe.length,
    async embed(texts, work = {}) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += batchSize) {
        throwIfAborted(work.signal);
        out.push(...(await run(texts.slice(i, i + batchSize))));
        work.onProgress?.({ step: 'embed', done: Math.min(i + batchSize, texts.length), total: texts.length });
      }
      return out;
    },
    countTokens(text) {
      return extractor.tokenizer.encode(text).length;
    },
    async dispose() {
      await extractor.dispose();
    },
  };
}
