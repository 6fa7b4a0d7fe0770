import { describe, expect, it } from 'vitest';
import { isHarelError } from '../../../widget/core/errors.ts';
import { toHarelError } from '../../../widget/engines/webllm/error-map.ts';
import { checkWebGpu, chooseModelVariant, type AdapterLike, type GpuReport } from '../../../widget/engines/webllm/gpu-check.ts';
import { weightSize } from '../../../widget/engines/webllm/preflight.ts';
import { mapInitProgress } from '../../../widget/engines/webllm/progress.ts';

function adapter(info: Record<string, unknown>, features: string[], isFallbackAdapter?: boolean): AdapterLike {
  const set = new Set(features);
  return {
    features: { has: (f) => set.has(f), forEach: (cb) => set.forEach((v) => cb(v)) },
    limits: { maxBufferSize: 1 << 30, maxStorageBufferBindingSize: 1 << 30 },
    info,
    isFallbackAdapter,
  };
}

const swiftshader = adapter({ vendor: 'google', architecture: 'swiftshader', description: '', isFallbackAdapter: true }, ['float32-filterable']);
const realGpu = adapter({ vendor: 'nvidia', architecture: 'ampere', description: 'NVIDIA RTX' }, ['shader-f16', 'timestamp-query']);

describe('checkWebGpu', () => {
  it('says unsupported without navigator.gpu or without an adapter', async () => {
    expect((await checkWebGpu(undefined)).verdict).toBe('unsupported');
    const none = await checkWebGpu({ requestAdapter: async () => null });
    expect(none).toMatchObject({ verdict: 'unsupported', adapter: null, shaderF16: false });
    expect(none.reason).toMatch(/no GPU adapter/);
  });

  it('recognises the SwiftShader fallback adapter and its missing shader-f16', async () => {
    const report = await checkWebGpu({ requestAdapter: async () => swiftshader });
    expect(report.verdict).toBe('software');
    expect(report.adapter).toMatchObject({ architecture: 'swiftshader', isFallbackAdapter: true });
    expect(report.shaderF16).toBe(false);
    expect(report.limits).toEqual({ maxBufferSize: 1 << 30, maxStorageBufferBindingSize: 1 << 30 });
    expect(report.reason).toMatch(/software/);
  });

  it('reads the fallback flag where older Chromium kept it, and passes a real GPU', async () => {
    const old = await checkWebGpu({ requestAdapter: async () => adapter({ vendor: 'intel' }, [], true) });
    expect(old.verdict).toBe('software');
    const ok = await checkWebGpu({ requestAdapter: async () => realGpu });
    expect(ok).toMatchObject({ verdict: 'ok', shaderF16: true });
    expect(ok.features).toContain('shader-f16');
  });
});

describe('chooseModelVariant', () => {
  const report = (over: Partial<GpuReport>): GpuReport => ({
    verdict: 'ok',
    reason: 'GPU',
    adapter: { vendor: 'x', architecture: '', description: '', isFallbackAdapter: false },
    features: [],
    shaderF16: true,
    limits: { maxBufferSize: 1 << 30, maxStorageBufferBindingSize: 1 << 30 },
    ...over,
  });

  it('keeps q4f16 when the GPU has shader-f16', () => {
    const choice = chooseModelVariant('gemma-2-2b-it-q4f16_1-MLC', report({}));
    expect(choice).toMatchObject({ ok: true, modelId: 'gemma-2-2b-it-q4f16_1-MLC', switched: false, warning: null });
  });

  it('switches q4f16 to its q4f32 twin without shader-f16, and says why', () => {
    const choice = chooseModelVariant('gemma-2-2b-it-q4f16_1-MLC-1k', report({ shaderF16: false }));
    expect(choice).toMatchObject({ ok: true, modelId: 'gemma-2-2b-it-q4f32_1-MLC-1k', switched: true });
    expect(choice.reason).toMatch(/shader-f16/);
  });

  it('warns on a software adapter but still chooses', () => {
    const choice = chooseModelVariant('gemma-2-2b-it-q4f16_1-MLC', report({ verdict: 'software', reason: 'only a software GPU adapter', shaderF16: false }));
    expect(choice.ok && choice.warning).toMatch(/software/);
    expect(choice.ok && choice.modelId).toBe('gemma-2-2b-it-q4f32_1-MLC');
  });

  it('refuses without an adapter, an unknown id, and an f16-only model on an f16-less GPU', () => {
    expect(chooseModelVariant('gemma-2-2b-it-q4f16_1-MLC', report({ verdict: 'unsupported', reason: 'no adapter' }))).toMatchObject({ ok: false, code: 'WEBGPU_UNAVAILABLE' });
    expect(chooseModelVariant('llama-9000', report({}))).toMatchObject({ ok: false, code: 'MODEL_UNKNOWN' });
    expect(chooseModelVariant('gemma3-1b-it-q4f16_1-MLC', report({ shaderF16: false }))).toMatchObject({ ok: false, code: 'SHADER_F16_MISSING' });
  });

  it('flags the English-only Gemma 3 1B for Hebrew users', () => {
    const choice = chooseModelVariant('gemma3-1b-it-q4f16_1-MLC', report({}));
    expect(choice.ok && choice.warning).toMatch(/English only/);
  });
});

describe('mapInitProgress', () => {
  it('maps the shard download to bytes when the total is known, else to shards', () => {
    const report = { progress: 0.25, timeElapsed: 3, text: 'Fetching param cache[10/40]: 350MB fetched. 25% completed, 3 secs elapsed.' };
    expect(mapInitProgress(report, 1_000_000)).toEqual({ step: 'download', done: 250_000, total: 1_000_000, detail: 'model weights' });
    expect(mapInitProgress(report)).toMatchObject({ step: 'download', done: 10, total: 40 });
  });

  it('maps loading from cache and shader compilation to compile', () => {
    expect(mapInitProgress({ progress: 0.5, timeElapsed: 1, text: 'Loading model from cache[5/40]: 100MB loaded.' })).toMatchObject({ step: 'compile', done: 5, total: 40 });
    expect(mapInitProgress({ progress: 0.9, timeElapsed: 1, text: 'Loading GPU shader modules[3/70]: 4% completed' })).toMatchObject({ step: 'compile', done: 3, total: 70, detail: 'GPU shaders' });
    expect(mapInitProgress({ progress: 1, timeElapsed: 9, text: 'Finish loading on WebGPU - google' })).toMatchObject({ step: 'compile', done: 1, total: 1 });
    expect(mapInitProgress({ progress: 0, timeElapsed: 0, text: 'Start to fetch params' }, 42)).toEqual({ step: 'download', done: 0, total: 42, detail: 'model weights' });
  });
});

describe('weightSize', () => {
  it('sums the shards of a tensor-cache.json', () => {
    expect(weightSize({ records: [{ nbytes: 10 }, { nbytes: 32 }] })).toEqual({ weightBytes: 42, shards: 2 });
    expect(weightSize({})).toEqual({ weightBytes: null, shards: 0 });
  });
});

describe('toHarelError', () => {
  const context = { modelId: 'gemma-2-2b-it-q4f32_1-MLC', modelUrl: 'http://localhost/models/x/resolve/main/' };
  const cases: [unknown, string][] = [
    ['ShaderF16SupportError: This model requires WebGPU extension shader-f16', 'SHADER_F16_MISSING'],
    ['WebGPUNotAvailableError: WebGPU is not supported', 'WEBGPU_UNAVAILABLE'],
    ['DeviceLostError: The WebGPU device was lost while loading the model.', 'GPU_DEVICE_LOST'],
    [new DOMException('The quota has been exceeded.', 'QuotaExceededError'), 'STORAGE_QUOTA'],
    [new TypeError('Failed to fetch'), 'MODEL_DOWNLOAD_FAILED'],
    ['CompileError: WebAssembly.instantiate(): expected magic word', 'MODEL_LOAD_FAILED'],
    [new DOMException('signal is aborted', 'AbortError'), 'MODEL_LOAD_ABORTED'],
  ];
  it.each(cases)('%s → %s', (error, code) => {
    const mapped = toHarelError(error, context);
    expect(isHarelError(mapped, code as never)).toBe(true);
  });

  it('names the model URL when the download error carries none', () => {
    expect(toHarelError(new TypeError('Failed to fetch'), context).message).toContain(context.modelUrl);
    expect(toHarelError(new TypeError('Failed to fetch'), context).message).toMatch(/model-base/);
  });
});
