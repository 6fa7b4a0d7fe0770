/**
 * Which llama.cpp backend the GGUF engine asks wllama for. WebGPU where the adapter is a real GPU;
 * a software adapter (SwiftShader, llvmpipe) would run every matrix product through a CPU
 * rasteriser, slower than WebAssembly on the same cores, so it gets WebAssembly. WebAssembly runs
 * multi-threaded only where the page is cross-origin isolated (it needs SharedArrayBuffer: the
 * page must be served with `Cross-Origin-Opener-Policy: same-origin` and
 * `Cross-Origin-Embedder-Policy: require-corp`), single-threaded otherwise.
 */
import type { GpuReport } from '../webllm/gpu-check.ts';

export type GgufBackend = 'webgpu' | 'wasm-threads' | 'wasm';

export interface BackendChoice {
  backend: GgufBackend;
  /** llama.cpp's CPU threads (1: wllama then starts no pthreads). */
  threads: number;
  /** Layers on the GPU: 0 keeps WebGPU off entirely; wllama's "all" is any large number. */
  gpuLayers: number;
  reason: string;
}

/** More threads than this stop paying on a phone or laptop (memory bandwidth bound). */
const MAX_THREADS = 8;

export function chooseGgufBackend(env: { gpu: GpuReport | null; crossOriginIsolated: boolean; cores: number }): BackendChoice {
  const threads = env.crossOriginIsolated ? Math.max(1, Math.min(MAX_THREADS, env.cores)) : 1;
  const cpu: GgufBackend = threads > 1 ? 'wasm-threads' : 'wasm';
  const cpuWhy = env.crossOriginIsolated
    ? `WebAssembly, ${threads} thread${threads > 1 ? 's' : ''} (cross-origin isolated page)`
    : 'WebAssembly, 1 thread (the page is not cross-origin isolated: no SharedArrayBuffer)';
  if (env.gpu?.verdict === 'ok') return { backend: 'webgpu', threads, gpuLayers: 999, reason: `WebGPU (${env.gpu.reason})` };
  const gpuWhy = env.gpu?.verdict === 'software' ? 'the WebGPU adapter is a software rasteriser' : 'no WebGPU';
  return { backend: cpu, threads, gpuLayers: 0, reason: `${cpuWhy}; ${gpuWhy}` };
}
