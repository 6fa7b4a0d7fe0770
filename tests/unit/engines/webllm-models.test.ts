import { prebuiltAppConfig } from '@mlc-ai/web-llm';
import { describe, expect, it } from 'vitest';
import { buildAppConfig, DEFAULT_MODEL_ID, findModel, GEMMA_MODELS, HUB_LIB_BASE, modelFilesUrl, modelRecord, quantizationTwin } from '../../../widget/engines/webllm/models.ts';

describe('Gemma catalog', () => {
  it('mirrors web-llm prebuiltAppConfig for every catalogued model', () => {
    for (const model of GEMMA_MODELS) {
      const prebuilt = prebuiltAppConfig.model_list.find((r) => r.model_id === model.id);
      expect(prebuilt, model.id).toBeDefined();
      const ours = modelRecord(model);
      expect(ours.model).toBe(prebuilt!.model);
      expect(ours.model_lib).toBe(prebuilt!.model_lib);
      expect(ours.vram_required_MB).toBe(prebuilt!.vram_required_MB);
      expect(ours.low_resource_required).toBe(prebuilt!.low_resource_required);
      expect(ours.overrides).toEqual(prebuilt!.overrides);
      expect(ours.buffer_size_required_bytes).toBe(prebuilt!.buffer_size_required_bytes);
      expect(ours.model_manifest).toBe(prebuilt!.model_manifest);
      // gemma3-1b q4f16 is the one record web-llm leaves without the feature; f16 kernels need it all the same.
      if (prebuilt!.required_features) expect(ours.required_features).toEqual(prebuilt!.required_features);
    }
  });

  it('defaults to gemma-2-2b q4f16 and pairs each q4f16 model with its q4f32 twin', () => {
    expect(findModel(DEFAULT_MODEL_ID)?.contextWindow).toBe(4096);
    expect(quantizationTwin(findModel('gemma-2-2b-it-q4f16_1-MLC')!)?.id).toBe('gemma-2-2b-it-q4f32_1-MLC');
    expect(quantizationTwin(findModel('gemma-2-2b-it-q4f16_1-MLC-1k')!)?.id).toBe('gemma-2-2b-it-q4f32_1-MLC-1k');
    expect(quantizationTwin(findModel('gemma3-1b-it-q4f16_1-MLC')!)).toBeUndefined();
    expect(findModel('gemma-2-2b-it-q4f32_1-MLC-1k')?.contextWindow).toBe(1024);
  });
});

describe('buildAppConfig', () => {
  it('points at the public hubs by default, with the Cache API', () => {
    const config = buildAppConfig();
    const record = config.model_list.find((r) => r.model_id === DEFAULT_MODEL_ID)!;
    expect(record.model).toBe('https://huggingface.co/mlc-ai/gemma-2-2b-it-q4f16_1-MLC');
    expect(record.model_lib.startsWith(HUB_LIB_BASE)).toBe(true);
    expect(config.cacheBackend).toBe('cache');
    expect(config.model_list).toHaveLength(GEMMA_MODELS.length);
  });

  it('with model-base, serves weights from <base>/<model> and libraries from <base>/libs/', () => {
    const config = buildAppConfig({ modelBase: 'https://cdn.example.co.il/llm/', cacheBackend: 'indexeddb' });
    const record = config.model_list.find((r) => r.model_id === 'gemma-2-2b-it-q4f32_1-MLC')!;
    expect(record.model).toBe('https://cdn.example.co.il/llm/gemma-2-2b-it-q4f32_1-MLC');
    expect(record.model_lib).toBe('https://cdn.example.co.il/llm/libs/gemma-2-2b-it-q4f32_1_cs1k-webgpu.wasm');
    expect(modelFilesUrl(record)).toBe('https://cdn.example.co.il/llm/gemma-2-2b-it-q4f32_1-MLC/resolve/main/');
    expect(config.cacheBackend).toBe('indexeddb');
  });

  it('resolves a relative model-base against the page (web-llm needs absolute URLs)', () => {
    const config = buildAppConfig({ modelBase: '/models', baseUrl: 'http://localhost:4191/dev/page.html' });
    const record = config.model_list.find((r) => r.model_id === DEFAULT_MODEL_ID)!;
    expect(record.model).toBe('http://localhost:4191/models/gemma-2-2b-it-q4f16_1-MLC');
    expect(() => buildAppConfig({ modelBase: '/models' })).toThrow(/not a URL/);
  });

  it("lets the -1k variants share the full model's weights folder", () => {
    const config = buildAppConfig({ modelBase: 'https://x.test/m' });
    const small = config.model_list.find((r) => r.model_id === 'gemma-2-2b-it-q4f16_1-MLC-1k')!;
    expect(small.model).toBe('https://x.test/m/gemma-2-2b-it-q4f16_1-MLC');
    expect(small.overrides?.context_window_size).toBe(1024);
  });
});
