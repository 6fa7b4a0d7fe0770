/**
 * What the device's WebGPU can do, found before anything is downloaded: web-llm itself fetches the
 * model's config and library (megabytes) before it looks at the GPU, and a q4f16 model fails only
 * then, on a device without `shader-f16`.
 */
import { findModel, quantizationTwin, GEMMA_MODELS, type GemmaModel } from './models.ts';

export type GpuVerdict = 'unsupported' | 'software' | 'ok';

export interface GpuAdapterSummary {
  vendor: string;
  architecture: string;
  description: string;
  isFallbackAdapter: boolean;
}

export interface GpuReport {
  verdict: GpuVerdict;
  /** The verdict in words, for the UI. */
  reason: string;
  adapter: GpuAdapterSummary | null;
  features: string[];
  shaderF16: boolean;
  limits: { maxBufferSize: number; maxStorageBufferBindingSize: number } | null;
}

/** The slice of the WebGPU API read here (the DOM typings of this TypeScript have none). */
interface AdapterInfoLike {
  vendor?: string;
  architecture?: string;
  description?: string;
  isFallbackAdapter?: boolean;
}
export interface AdapterLike {
  features: { has(name: string): boolean; forEach(cb: (value: string) => void): void };
  limits: { maxBufferSize: number; maxStorageBufferBindingSize: number };
  info?: AdapterInfoLike;
  /** Older Chromium kept the flag on the adapter itself. */
  isFallbackAdapter?: boolean;
  requestAdapterInfo?: () => Promise<AdapterInfoLike>;
}
export interface GpuLike {
  requestAdapter(options?: { powerPreference?: 'high-performance' | 'low-power' }): Promise<AdapterLike | null>;
}

/** Software rasterisers that expose WebGPU: correct but far too slow for a 2B-parameter model. */
const SOFTWARE_ADAPTER = /swiftshader|llvmpipe|lavapipe|software|basic render/i;

export async function checkWebGpu(gpu: GpuLike | undefined = defaultGpu()): Promise<GpuReport> {
  if (!gpu) return unsupported('this browser has no WebGPU (navigator.gpu is missing)');
  let adapter: AdapterLike | null;
  try {
    adapter = await gpu.requestAdapter({ powerPreference: 'high-performance' });
  } catch (error) {
    return unsupported(`requesting a GPU adapter failed (${String(error)})`);
  }
  if (!adapter) return unsupported('WebGPU is present but no GPU adapter is available (disabled or blocklisted)');
  const summary = await summarizeAdapter(adapter);
  const features: string[] = [];
  adapter.features.forEach((f) => features.push(f));
  features.sort();
  const shaderF16 = adapter.features.has('shader-f16');
  const limits = {
    maxBufferSize: Number(adapter.limits.maxBufferSize),
    maxStorageBufferBindingSize: Number(adapter.limits.maxStorageBufferBindingSize),
  };
  const software = summary.isFallbackAdapter || SOFTWARE_ADAPTER.test(`${summary.vendor} ${summary.architecture} ${summary.description}`);
  const name = [summary.vendor, summary.architecture, summary.description].filter(Boolean).join(' ') || 'unnamed adapter';
  return {
    verdict: software ? 'software' : 'ok',
    reason: software ? `only a software GPU adapter is available (${name}): a model would run, but very slowly` : `GPU adapter ${name}${shaderF16 ? ' with shader-f16' : ' without shader-f16'}`,
    adapter: summary,
    features,
    shaderF16,
    limits,
  };
}

function unsupported(reason: string): GpuReport {
  return { verdict: 'unsupported', reason, adapter: null, features: [], shaderF16: false, limits: null };
}

async function summarizeAdapter(adapter: AdapterLike): Promise<GpuAdapterSummary> {
  let info: AdapterInfoLike = adapter.info ?? {};
  if (!adapter.info && adapter.requestAdapterInfo) {
    info = await adapter.requestAdapterInfo().catch(() => ({}));
  }
  return {
    vendor: info.vendor ?? '',
    architecture: info.architecture ?? '',
    description: info.description ?? '',
    isFallbackAdapter: Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter),
  };
}

function defaultGpu(): GpuLike | undefined {
  return typeof navigator === 'undefined' ? undefined : (navigator as Navigator & { gpu?: GpuLike }).gpu;
}

export type VariantChoice =
  | {
      ok: true;
      modelId: string;
      requested: string;
      /** True when another variant than the requested one was chosen. */
      switched: boolean;
      reason: string;
      /** Something the user should know although the model can load (software adapter, English-only model). */
      warning: string | null;
    }
  | { ok: false; requested: string; code: 'WEBGPU_UNAVAILABLE' | 'SHADER_F16_MISSING' | 'MODEL_UNKNOWN'; reason: string };

/** Picks the variant of `requested` this device can run, or says why none can. */
export function chooseModelVariant(requested: string, report: GpuReport): VariantChoice {
  const model = findModel(requested);
  if (!model) {
    return { ok: false, requested, code: 'MODEL_UNKNOWN', reason: `"${requested}" is not in the catalog (${GEMMA_MODELS.map((m) => m.id).join(', ')})` };
  }
  if (report.verdict === 'unsupported') {
    return { ok: false, requested, code: 'WEBGPU_UNAVAILABLE', reason: report.reason };
  }
  let chosen: GemmaModel = model;
  let reason = `${model.id} fits this device`;
  if (model.quantization === 'q4f16_1' && !report.shaderF16) {
    const twin = quantizationTwin(model);
    if (!twin) {
      return { ok: false, requested, code: 'SHADER_F16_MISSING', reason: `${model.id} needs shader-f16, which this GPU lacks, and has no q4f32 variant` };
    }
    chosen = twin;
    reason = `this GPU lacks shader-f16, so ${twin.id} (32-bit float shaders, ${twin.vramMB.toFixed(0)} MB of GPU memory instead of ${model.vramMB.toFixed(0)} MB) replaces ${model.id}`;
  }
  const warnings: string[] = [];
  if (report.verdict === 'software') warnings.push(report.reason);
  if (chosen.englishOnly) warnings.push(`${chosen.id} was trained on English only; Hebrew answers will be poor`);
  const limit = report.limits?.maxStorageBufferBindingSize;
  if (chosen.bufferSizeRequiredBytes !== undefined && limit !== undefined && limit < chosen.bufferSizeRequiredBytes) {
    warnings.push(`the GPU's storage buffers (${limit} bytes) are smaller than ${chosen.id} needs (${chosen.bufferSizeRequiredBytes})`);
  }
  return { ok: true, modelId: chosen.id, requested, switched: chosen.id !== requested, reason, warning: warnings.length ? warnings.join('; ') : null };
}
