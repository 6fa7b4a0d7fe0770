/**
 * Query embedding in the browser, and THE one place that configures transformers.js there.
 * transformers.js keeps its settings in one global `env`, so every load sets all of them: a
 * previous load's location must not leak into the next.
 *
 * Matches builder/embed/embedder.ts: the manifest's query prefix, mean pooling, normalisation.
 */
import { env, pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { createError, throwIfAborted } from '../core/errors.ts';
import type { WorkOptions } from '../core/schema.ts';
import { resolveModelLocation, resolveWasmPaths, type ModelLocation } from './model-location.ts';
import { checkWebGpu } from '../engines/webllm/gpu-check.ts';
import { createWindowedEncoder, type WindowedEncoder } from './windowed-encoder.ts';

export type EmbedDevice = 'webgpu' | 'wasm';

export interface QueryEmbedderOptions extends WorkOptions {
  /** Model id, e.g. 'Xenova/multilingual-e5-small' or 'fixture/tiny-embedder'. */
  id: string;
  /** Absolute URL of the folder holding `<id>/config.json, tokenizer.json, onnx/…`; null or absent: the Hugging Face hub. */
  modelBase?: string | null;
  /** Absolute URL of the folder where the app serves onnxruntime-web's .wasm/.mjs files (never a CDN). */
  wasmPaths: string;
  /** The index's model file (manifest embedder.dtype): 'q8' (default) onnx/model_quantized.onnx, 'q4' onnx/model_q4.onnx, 'fp32' onnx/model.onnx. */
  dtype?: 'q8' | 'q4' | 'fp32';
  /** The index's query prefix (manifest embedder.queryPrefix); default 'query: '. */
  queryPrefix?: string;
  /** Default: WebGPU when an adapter is available, else wasm. */
  device?: EmbedDevice | 'auto';
}

export interface QueryEmbedder {
  readonly id: string;
  readonly device: EmbedDevice;
  readonly dimensions: number;
  /** A unit vector for the query, the prefix added here. */
  embed(query: string): Promise<Float32Array>;
  /** A unit vector for text that already carries its prefix. */
  embedText(text: string): Promise<Float32Array>;
  dispose(): Promise<void>;
}

const HUB = { remoteHost: env.remoteHost, remotePathTemplate: env.remotePathTemplate, localModelPath: env.localModelPath };

/**
 * `modelBase` and `wasmPaths` must be absolute: the search worker may run from a `blob:` URL
 * (widget on another origin), against which nothing relative resolves, so the page resolves them
 * against its own URL before posting them (widget/search/worker-search-service.ts).
 */
export function configureBrowserTransformers(modelBase: string | null | undefined, wasmPaths: string): ModelLocation {
  const location = resolveModelLocation(modelBase);
  // Never transformers.js's local path (see widget/embed/model-location.ts): a self-hosted folder
  // is its remote host, so nothing is ever fetched relative to the worker's own URL.
  env.allowLocalModels = false;
  env.allowRemoteModels = true;
  // With local models off, transformers.js still looks the local path up in its cache first: make
  // it the folder itself, the same key as the remote URL, so a file cached from another folder
  // (a model-base that changed) never answers for this one.
  env.localModelPath = location.kind === 'folder' ? location.remoteHost : HUB.localModelPath;
  env.remoteHost = location.kind === 'folder' ? location.remoteHost : HUB.remoteHost;
  env.remotePathTemplate = location.kind === 'folder' ? location.remotePathTemplate : HUB.remotePathTemplate;
  // transformers.js keeps model files in its Cache Storage (`transformers-cache`), and that stays:
  // nothing else stores them. onnxruntime's .wasm/.mjs are the widget's own code, cached like the
  // rest of it: by the HTTP cache, or a site's service worker (the demo's precache, demo/sw.ts).
  // Its wasm cache would be a second copy of 27 MB in a PWA, keyed by an unversioned URL that it
  // serves cache-first forever (an upgraded onnxruntime would meet its old wasm), and it compiles
  // from a copy held in memory instead of streaming. Measured in tests/e2e/pwa.spec.ts.
  env.useWasmCache = false;
  const onnx = env.backends.onnx as { wasm?: { wasmPaths?: unknown; numThreads?: number } };
  if (onnx.wasm) {
    onnx.wasm.wasmPaths = resolveWasmPaths(wasmPaths);
    // Threads need cross-origin isolation; without it ort warns and falls back to one anyway.
    if (!globalThis.crossOriginIsolated) onnx.wasm.numThreads = 1;
  }
  return location;
}

/**
 * WebGPU on a hardware adapter, else wasm. A software adapter (SwiftShader, llvmpipe: what a
 * machine without a GPU offers) is the CPU at a GPU's overhead, and there E5's q4 file did not
 * even run: its Gather wants shader-f16, which SwiftShader lacks (measured in Chromium).
 */
export async function detectDevice(): Promise<EmbedDevice> {
  try {
    return (await checkWebGpu()).verdict === 'ok' ? 'webgpu' : 'wasm';
  } catch {
    return 'wasm';
  }
}

/** Where transformers.js keeps model files in the browser (its `env.cacheKey`). */
export const MODEL_CACHE = 'transformers-cache';

/** The URL prefix of every file of model `id` under `modelBase` (or the hub), as transformers.js fetches and caches them. */
export function modelFolderUrl(id: string, modelBase: string | null | undefined): string {
  const location = resolveModelLocation(modelBase);
  return location.kind === 'folder' ? `${location.remoteHost}${id}/` : `${HUB.remoteHost.replace(/\/?$/, '/')}${id}/`;
}

/**
 * Removes model `id`'s files from transformers.js's cache. transformers.js stores any 200 response
 * before it parses it, and reads its cache first: a truncated file, a web page answering a model
 * URL, or another model's file would otherwise fail every later visit too, even once the site
 * serves the right one. Best effort (no Cache Storage, or nothing stored: nothing to do).
 */
export async function forgetModelFiles(id: string, modelBase: string | null | undefined): Promise<number> {
  if (typeof caches === 'undefined') return 0;
  const prefix = modelFolderUrl(id, modelBase);
  try {
    const cache = await caches.open(MODEL_CACHE);
    const stale = (await cache.keys()).filter((request) => request.url.startsWith(prefix));
    await Promise.all(stale.map((request) => cache.delete(request)));
    return stale.length;
  } catch {
    return 0;
  }
}

export async function createQueryEmbedder(options: QueryEmbedderOptions): Promise<QueryEmbedder> {
  const { id, signal, onProgress, dtype = 'q8', queryPrefix = 'query: ' } = options;
  configureBrowserTransformers(options.modelBase, options.wasmPaths);
  const preferred = !options.device || options.device === 'auto' ? await detectDevice() : options.device;
  // Bytes over all the model's files, not per file: a counter that restarted with each file
  // (tokenizer, then the ONNX file) would read as a download going backwards.
  const files = new Map<string, { loaded: number; total: number }>();
  const load = (device: EmbedDevice) =>
    pipeline('feature-extraction', id, {
      device,
      dtype,
      progress_callback: (p) => {
        if (p.status !== 'progress' || !p.total) return;
        files.set(p.file, { loaded: p.loaded, total: p.total });
        let done = 0;
        let total = 0;
        for (const f of files.values()) {
          done += f.loaded;
          total += f.total;
        }
        onProgress?.({ step: 'model', done, total, detail: p.file });
      },
    });
  /** The pipeline on `device`, proven by one embedding (a GPU may load a model it cannot run). */
  const start = async (device: EmbedDevice): Promise<{ extractor: FeatureExtractionPipeline; encoder: WindowedEncoder; probe: Float32Array }> => {
    const extractor = await load(device);
    // The builder's own encoder (windows for long texts, one <unk> per unknown character), so a
    // query and a passage of the same text meet at cosine 1.
    const encoder = createWindowedEncoder(extractor);
    try {
      return { extractor, encoder, probe: (await encoder.encode([queryPrefix]))[0] };
    } catch (error) {
      await extractor.dispose().catch(() => undefined);
      throw new Error(`it loaded but could not embed a test query (${error instanceof Error ? error.message : String(error)})`);
    }
  };
  let started: Awaited<ReturnType<typeof start>>;
  let device = preferred;
  try {
    try {
      started = await start(device);
    } catch (error) {
      // A GPU can fail where wasm works (a flaky adapter, a kernel it lacks); a missing file fails both.
      if (device !== 'webgpu' || signal?.aborted || /not found|404|Could not locate/i.test(String(error))) throw error;
      device = 'wasm';
      started = await start(device);
    }
  } catch (error) {
    if (!signal?.aborted) await forgetModelFiles(id, options.modelBase);
    throw createError('EMBEDDER_UNAVAILABLE', id, error instanceof Error ? error.message : String(error));
  }
  const { extractor, encoder, probe } = started;
  const run = async (text: string): Promise<Float32Array> => (await encoder.encode([text]))[0];
  if (signal?.aborted) {
    await extractor.dispose();
    throwIfAborted(signal);
  }
  return {
    id,
    device,
    dimensions: probe.length,
    embed: (query) => run(queryPrefix + query),
    embedText: run,
    dispose: () => extractor.dispose(),
  };
}
