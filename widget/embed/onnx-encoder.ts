/**
 * The query model's ONNX session on onnxruntime-web's plain wasm build, as the windowed encoder's
 * `run` (widget/core/embedding/windowed-encoder.ts).
 *
 * Why onnxruntime-web directly, not transformers.js's pipeline: transformers.js imports
 * onnxruntime's WebGPU bundle, whose wasm is the asyncify build (27 MB). The plain build (14 MB)
 * starts in about half the time and runs E5 faster: measured in Chromium here, one thread, the
 * fp32 question file, 12–31-token questions: runtime ready 0.47 s against 0.84 s, a question
 * p50 43 ms against 79 ms (`.tmp`-free figures: docs in README, "The query model (E5) in the
 * browser"). Queries stay on wasm even where a GPU is: for a 20-token question a GPU's dispatch
 * and shader compilation cost more than they save, and the WebGPU bundle would double the download.
 */
import * as ort from 'onnxruntime-web/wasm';
import type { EncoderParts } from '../core/embedding/windowed-encoder.ts';

export type OnnxRun = EncoderParts['run'];

export interface OnnxEncoder {
  run: OnnxRun;
  dispose(): Promise<void>;
}

/**
 * Where onnxruntime finds its .mjs/.wasm (absolute URLs: see widget/embed/model-location.ts), and
 * its threads; returns how many it runs on.
 */
export function configureOnnxRuntime(wasmPaths: { mjs: string; wasm: string } | null): number {
  if (wasmPaths) ort.env.wasm.wasmPaths = wasmPaths;
  // Threads need cross-origin isolation (SharedArrayBuffer); without it onnxruntime warns and
  // falls back to one anyway.
  const cores = typeof navigator === 'undefined' ? 1 : navigator.hardwareConcurrency || 1;
  ort.env.wasm.numThreads = globalThis.crossOriginIsolated ? Math.max(1, Math.min(4, cores)) : 1;
  return ort.env.wasm.numThreads;
}

export interface OnnxEncoderOptions {
  /**
   * The graph's external data, already in memory (a 'q4f32' model's expanded weights:
   * widget/core/embedding/q4-weights.ts). Such a model starts with every graph optimization off:
   * nothing is left to fold, and onnxruntime's passes over the graph cost more at start (measured
   * here: session ready in 0.7 s against 2.5 s for model.onnx, which folds) than they saved a
   * question (53 ms against 54 ms p50).
   */
  externalData?: { path: string; data: Uint8Array };
}

/** A session over the model's bytes; throws (onnxruntime's message) on a file it cannot read. */
export async function createOnnxEncoder(model: Uint8Array, options: OnnxEncoderOptions = {}): Promise<OnnxEncoder> {
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['wasm'],
    // onnxruntime's pool threads spin after each product by default: between a question's
    // products that saves a wake-up, but after the run they keep the cores from the search and
    // the page (measured on 2 cores: docs/benchmarks.md, "The question's path in Chromium").
    ...(ort.env.wasm.numThreads && ort.env.wasm.numThreads > 1 ? { extra: { session: { intra_op: { allow_spinning: '0' } } } } : {}),
    ...(options.externalData ? { externalData: [options.externalData], graphOptimizationLevel: 'disabled' as const } : {}),
  });
  const output = session.outputNames.includes('last_hidden_state') ? 'last_hidden_state' : session.outputNames[0];
  const wantsTypes = session.inputNames.includes('token_type_ids');
  return {
    async run(ids, mask, batch, length) {
      const dims = [batch, length];
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', ids, dims),
        attention_mask: new ort.Tensor('int64', mask, dims),
      };
      if (wantsTypes) feeds.token_type_ids = new ort.Tensor('int64', new BigInt64Array(ids.length), dims);
      const results = await session.run(feeds, [output]);
      const hidden = results[output];
      try {
        if (hidden.type !== 'float32' || hidden.dims.length !== 3) throw new Error(`the model's ${output} is ${hidden.type} [${hidden.dims.join(', ')}], not float32 [batch, tokens, dimensions]`);
        return { data: (hidden.data as Float32Array).slice(), dimensions: hidden.dims[2] };
      } finally {
        hidden.dispose();
      }
    },
    dispose: () => session.release(),
  };
}
