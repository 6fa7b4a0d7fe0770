/**
 * Loading a GGUF into llama.cpp (@wllama/wllama), shared by the answer engine (gguf-engine.ts)
 * and the reader (gguf-reader.ts). wllama runs llama.cpp in its own Web Worker (the page's thread
 * only posts messages), on WebGPU where the adapter is a real GPU and on WebAssembly otherwise
 * (gguf-backend.ts), with threads where the page is cross-origin isolated (one wasm file serves
 * both: wllama starts its pthread pool when SharedArrayBuffer is there and more than one thread
 * is asked for).
 *
 * A Range request for the file's first 64 KB refuses a missing or wrong file before the download;
 * wllama then downloads it into the origin-private file system (OPFS), where it stays for offline
 * use (`allowOffline`: a cached model loads with the network gone); the downloaded file is
 * inspected (gguf-inspect.ts: truncation, architecture, prompt format) before llama.cpp starts.
 * The caller's signal cancels every step.
 */
import { Wllama, type WllamaLogger } from '@wllama/wllama';
// no-inline: a library build (vite.widget.config.ts) would otherwise put the 10 MB runtime into
// this chunk as base64; as a file beside the bundle it is fetched (and cached) only for this engine.
import wllamaWasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url&no-inline';
import { createError, type HarelError } from '../../core/errors.ts';
import { readStreamBytes } from '../../core/format/bytes.ts';
import type { GpuReport } from '../webllm/gpu-check.ts';
import type { LlmLoadProgress } from '../webllm/progress.ts';
import { chooseGgufBackend, type BackendChoice } from './gguf-backend.ts';
import { toGgufError } from './gguf-errors.ts';
import { inspectGgufBlob, probeGgufHeader, PROBE_BYTES, type GgufInspection } from './gguf-inspect.ts';
import { ggufModelName } from './gguf-location.ts';

export interface GgufFileOptions {
  /** The .gguf file's absolute URL (gguf-location.ts). */
  url: string;
  signal?: AbortSignal;
  onProgress?: (progress: LlmLoadProgress) => void;
  /** The WebGPU report, when made already: decides WebGPU or WebAssembly. */
  gpuReport?: GpuReport | null;
  /** Forces a backend's thread count (tests, measurements); default from the page's isolation. */
  threads?: number;
}

export interface LoadedGguf {
  wllama: Wllama;
  modelId: string;
  inspection: GgufInspection;
  /** The backend as llama.cpp runs it (its thread count as wllama reports it). */
  backend: BackendChoice;
  /** Whether the file came from the browser's model cache (no download). */
  fromCache: boolean;
  /** The file in the model cache (OPFS): read again without a download. */
  file: Blob;
}

export type GgufProbe =
  | { ok: true; modelId: string /** The file's size (Content-Range), 0 when the server did not say. */; bytes: number; cached: boolean }
  | { ok: false; modelId: string; error: HarelError };

/**
 * Downloads (or finds in the cache), checks and starts a GGUF with a context of `contextTokens`.
 * `slots`: llama.cpp's parallel sequences (wllama's default 4); a caller that reads in turn needs one.
 */
export async function loadGguf(options: GgufFileOptions & { contextTokens: number; slots?: number }): Promise<LoadedGguf> {
  const { url, signal } = options;
  const modelId = ggufModelName(url);
  if (signal?.aborted) throw createError('MODEL_LOAD_ABORTED', modelId);
  const gpu = options.gpuReport ?? null;
  const isolated = typeof crossOriginIsolated !== 'undefined' && crossOriginIsolated;
  const backend = chooseGgufBackend({ gpu, crossOriginIsolated: isolated, cores: navigator.hardwareConcurrency || 1 });
  const threads = options.threads ?? backend.threads;
  const wllama = newWllama();
  const stop = () => void wllama.exit().catch(() => undefined);
  signal?.addEventListener('abort', stop, { once: true });
  try {
    const cached = (await wllama.modelManager.getModels()).find((m) => m.url === url);
    if (!cached) await probe(url, signal);
    const progress = (loaded: number, total: number) => options.onProgress?.({ step: 'download', done: loaded, total, detail: 'GGUF model' });
    const model = cached ?? (await wllama.modelManager.downloadModel(url, { signal, progressCallback: ({ loaded, total }) => progress(loaded, total) }));
    if (cached) progress(cached.size, cached.size);
    if (signal?.aborted) throw createError('MODEL_LOAD_ABORTED', modelId);
    const blobs = await model.open();
    const inspection = await inspectGgufBlob(blobs[0], url);
    options.onProgress?.({ step: 'compile', done: 0, total: 1, detail: `starting llama.cpp: ${backend.reason}` });
    await wllama.loadModel(blobs, { n_ctx: options.contextTokens, n_threads: threads, n_gpu_layers: backend.gpuLayers, ...(options.slots ? { n_parallel: options.slots } : {}) });
    if (signal?.aborted) throw createError('MODEL_LOAD_ABORTED', modelId);
    options.onProgress?.({ step: 'compile', done: 1, total: 1, detail: `ready: ${backend.reason}` });
    return { wllama, modelId, inspection, backend: { ...backend, threads: wllama.getNumThreads() }, fromCache: Boolean(cached), file: blobs[0] };
  } catch (error) {
    await wllama.exit().catch(() => undefined);
    throw signal?.aborted ? createError('MODEL_LOAD_ABORTED', modelId) : toGgufError(error, { url, model: modelId });
  } finally {
    signal?.removeEventListener('abort', stop);
  }
}

/**
 * Whether the model can be loaded, before any download: in the browser's model cache (offline
 * included), or served with a GGUF header of a supported architecture. Never throws.
 */
export async function probeGguf(url: string): Promise<GgufProbe> {
  const modelId = ggufModelName(url);
  try {
    const cached = (
      await newWllama()
        .modelManager.getModels()
        .catch(() => [])
    ).find((m) => m.url === url);
    if (cached) return { ok: true, modelId, bytes: cached.size, cached: true };
    const bytes = await probe(url, undefined);
    return { ok: true, modelId, bytes, cached: false };
  } catch (error) {
    return { ok: false, modelId, error: toGgufError(error, { url, model: modelId }) };
  }
}

function newWllama(): Wllama {
  return new Wllama({ default: wllamaWasmUrl }, { allowOffline: true, suppressNativeLog: true, logger: QUIET_LOGGER });
}

/** The early check: the file is there, and its first bytes are a GGUF of a known architecture. */
async function probe(url: string, signal: AbortSignal | undefined): Promise<number> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { Range: `bytes=0-${PROBE_BYTES - 1}` }, signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw createError('MODEL_DOWNLOAD_FAILED', url, error instanceof Error ? error.message : String(error));
  }
  if (response.status === 404 || response.status === 410) throw createError('GGUF_MODEL_MISSING', url, `HTTP ${response.status}`);
  if (!response.ok) throw createError('MODEL_DOWNLOAD_FAILED', url, `HTTP ${response.status}`);
  // A server that ignores Range sends the whole file: read the first chunk only, then let go.
  const bytes = await readPrefix(response, PROBE_BYTES);
  probeGgufHeader(bytes, url);
  const total = /\/(\d+)$/.exec(response.headers.get('Content-Range') ?? '')?.[1] ?? (response.status === 200 ? response.headers.get('Content-Length') : null);
  return total ? Number(total) : 0;
}

async function readPrefix(response: Response, limit: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(await response.arrayBuffer()).subarray(0, limit);
  return (await readStreamBytes(response.body, { stopAt: limit })).subarray(0, limit);
}

/** wllama logs every download step and llama.cpp line at debug level: only warnings and errors reach the console. */
const QUIET_LOGGER: WllamaLogger = {
  debug: () => undefined,
  log: () => undefined,
  warn: (...args: unknown[]) => console.warn('[wllama]', ...args),
  error: (...args: unknown[]) => console.error('[wllama]', ...args),
};
