/**
 * The Gemma models the widget offers, and the web-llm app config that points at them — the public
 * hubs, or a site's own copy (`model-base`). The records mirror web-llm 0.2.86's
 * `prebuiltAppConfig` (a unit test keeps them in step) so this file needs only web-llm's types:
 * importing its values here would pull its 6 MB bundle into the widget's first load.
 */
import type { AppConfig, ModelRecord } from '@mlc-ai/web-llm';

/** web-llm's cache backends (its `CacheBackend`, which the package does not export). */
export type CacheBackend = NonNullable<AppConfig['cacheBackend']>;

export interface GemmaModel {
  id: string;
  /** Hugging Face repository of the weights; its last segment is the weights folder's name. */
  hubRepo: string;
  /** File name of the compiled model library (WebGPU kernels + runtime). */
  libFile: string;
  quantization: 'q4f16_1' | 'q4f32_1';
  /** GPU memory web-llm expects the model to take. */
  vramMB: number;
  /**
   * Rough download size (parameters × bits per weight), for the "load the model?" prompt. The
   * exact figure is read from the model's tensor-cache.json before the download starts.
   */
  approxDownloadMB: number | null;
  contextWindow: number;
  lowResource: boolean;
  /** Gemma 3 1B was trained on English only: Hebrew questions would get poor answers. */
  englishOnly: boolean;
  bufferSizeRequiredBytes?: number;
  /** web-llm's model package manifest, for models that ship one. */
  modelManifest?: string;
}

export const DEFAULT_MODEL_ID = 'gemma-2-2b-it-q4f16_1-MLC';

/** Where web-llm 0.2.86 publishes its model libraries (`modelLibURLPrefix` + `modelVersion`). */
export const HUB_LIB_BASE = 'https://raw.githubusercontent.com/mlc-ai/binary-mlc-llm-libs/main/web-llm-models/v0_2_86/base/';
export const HUB_MODEL_BASE = 'https://huggingface.co/';

function gemma(id: string, libFile: string, vramMB: number, approxDownloadMB: number | null, contextWindow: number, extra: Partial<GemmaModel> = {}): GemmaModel {
  const quantization = id.includes('q4f32') ? 'q4f32_1' : 'q4f16_1';
  return {
    id,
    hubRepo: `mlc-ai/${id.replace(/-1k$/, '')}`,
    libFile,
    quantization,
    vramMB,
    approxDownloadMB,
    contextWindow,
    lowResource: false,
    englishOnly: false,
    ...extra,
  };
}

export const GEMMA_MODELS: readonly GemmaModel[] = [
  gemma('gemma-2-2b-it-q4f16_1-MLC', 'gemma-2-2b-it-q4f16_1_cs1k-webgpu.wasm', 1895.3, 1470, 4096),
  gemma('gemma-2-2b-it-q4f32_1-MLC', 'gemma-2-2b-it-q4f32_1_cs1k-webgpu.wasm', 2508.75, 1630, 4096),
  gemma('gemma-2-2b-it-q4f16_1-MLC-1k', 'gemma-2-2b-it-q4f16_1_cs1k-webgpu.wasm', 1583.3, 1470, 1024, { lowResource: true }),
  gemma('gemma-2-2b-it-q4f32_1-MLC-1k', 'gemma-2-2b-it-q4f32_1_cs1k-webgpu.wasm', 1884.75, 1630, 1024, { lowResource: true }),
  gemma('gemma-2-9b-it-q4f16_1-MLC', 'gemma-2-9b-it-q4f16_1_cs1k-webgpu.wasm', 6422.01, 5200, 4096),
  gemma('gemma-2-9b-it-q4f32_1-MLC', 'gemma-2-9b-it-q4f32_1_cs1k-webgpu.wasm', 8383.33, 5780, 4096),
  gemma('gemma3-1b-it-q4f16_1-MLC', 'gemma3-1b-it-q4f16_1_cs1k-webgpu.wasm', 711.07, 560, 4096, { lowResource: true, englishOnly: true }),
  gemma('gemma-4-E2B-it-q4f16_1-MLC', 'gemma-4-E2B-it-q4f16_1_cs512-webgpu.wasm', 3387.37, null, 4096, {
    bufferSizeRequiredBytes: 201326592,
    modelManifest: 'mlc-model-manifest.json',
  }),
  gemma('gemma-4-E2B-it-q4f32_1-MLC', 'gemma-4-E2B-it-q4f32_1_cs512-webgpu.wasm', 3862.72, null, 4096, {
    bufferSizeRequiredBytes: 201326592,
    modelManifest: 'mlc-model-manifest.json',
  }),
];

export function findModel(id: string): GemmaModel | undefined {
  return GEMMA_MODELS.find((m) => m.id === id);
}

/** The same model with the other quantization (q4f16 ↔ q4f32), keeping the -1k suffix. */
export function quantizationTwin(model: GemmaModel): GemmaModel | undefined {
  const other = model.quantization === 'q4f16_1' ? 'q4f32_1' : 'q4f16_1';
  return findModel(model.id.replace(model.quantization, other));
}

export interface AppConfigOptions {
  /** A self-hosted folder or URL holding `<weights folder>/resolve/main/…` and `libs/<lib>.wasm`; null for the hubs. */
  modelBase?: string | null;
  /** Resolves a relative `modelBase` (the page's URL in the browser). web-llm needs absolute URLs. */
  baseUrl?: string;
  cacheBackend?: CacheBackend;
}

/** The folder a model's weights live in: the -1k variants share the full model's weights. */
export function weightsFolder(model: GemmaModel): string {
  return model.hubRepo.slice(model.hubRepo.lastIndexOf('/') + 1);
}

export function modelRecord(model: GemmaModel, options: AppConfigOptions = {}): ModelRecord {
  const base = options.modelBase ? absoluteBase(options.modelBase, options.baseUrl) : null;
  const record: ModelRecord = {
    model: base ? `${base}/${weightsFolder(model)}` : `${HUB_MODEL_BASE}${model.hubRepo}`,
    model_id: model.id,
    model_lib: base ? `${base}/libs/${model.libFile}` : `${HUB_LIB_BASE}${model.libFile}`,
    vram_required_MB: model.vramMB,
    low_resource_required: model.lowResource,
    overrides: { context_window_size: model.contextWindow },
  };
  // web-llm checks the feature itself after fetching the library; declaring it keeps its error specific.
  if (model.quantization === 'q4f16_1') record.required_features = ['shader-f16'];
  if (model.bufferSizeRequiredBytes !== undefined) record.buffer_size_required_bytes = model.bufferSizeRequiredBytes;
  if (model.modelManifest !== undefined) record.model_manifest = model.modelManifest;
  return record;
}

/** web-llm's app config for the whole catalog, so cache queries work for any variant. */
export function buildAppConfig(options: AppConfigOptions = {}): AppConfig {
  return {
    model_list: GEMMA_MODELS.map((m) => modelRecord(m, options)),
    cacheBackend: options.cacheBackend ?? 'cache',
  };
}

/** `<model>/resolve/main/`: where web-llm reads a model's files from. */
export function modelFilesUrl(record: ModelRecord): string {
  return `${record.model.replace(/\/+$/, '')}/resolve/main/`;
}

function absoluteBase(modelBase: string, baseUrl: string | undefined): string {
  let url: URL;
  try {
    url = new URL(modelBase, baseUrl);
  } catch {
    throw new TypeError(`model-base "${modelBase}" is not a URL and there is no page URL to resolve it against.`);
  }
  return url.href.replace(/\/+$/, '');
}
