/**
 * The bridge from the chat to the local LLM: whether this device can run the configured model
 * (checked before anything is downloaded), and a loader that imports web-llm only when the
 * customer — or mode="llm" — asks for it, so the widget's first load stays small.
 */
import { createError, type HarelError } from '../core/errors.ts';
import { checkWebGpu, chooseModelVariant } from '../engines/webllm/gpu-check.ts';
import { findModel, GEMMA_MODELS } from '../engines/webllm/models.ts';
import type { LlmLoader } from './chat-session.ts';

/** Why the model is not offered, as the UI words it (the technical reason goes in `detail`). */
export type LlmUnavailableReason = 'no-webgpu' | 'software-gpu' | 'incompatible';

export type LlmSupport =
  | { ok: true; modelId: string; downloadBytes: number; note: string }
  | {
      ok: false;
      reason: LlmUnavailableReason;
      detail: string;
      /** The same, as the error `mode="llm"` reports (harel-chat:error): WEBGPU_UNAVAILABLE, SHADER_F16_MISSING or MODEL_UNKNOWN. */
      error: HarelError;
    };

/**
 * WebGPU, shader-f16 and the model's variant, checked before anything is downloaded. A software
 * adapter (SwiftShader) could run the model in principle, but a 2B model on a CPU rasteriser is
 * minutes per sentence: customers are not offered it (a site owner can still force mode="llm").
 */
export async function probeLlmSupport(requested: string, options: { allowSoftware?: boolean } = {}): Promise<LlmSupport> {
  const report = await checkWebGpu();
  const choice = chooseModelVariant(requested, report);
  if (!choice.ok) {
    const error =
      choice.code === 'WEBGPU_UNAVAILABLE'
        ? createError('WEBGPU_UNAVAILABLE', choice.reason)
        : choice.code === 'SHADER_F16_MISSING'
          ? createError('SHADER_F16_MISSING', requested)
          : createError('MODEL_UNKNOWN', requested, GEMMA_MODELS.map((m) => m.id).join(', '));
    return { ok: false, reason: choice.code === 'WEBGPU_UNAVAILABLE' ? 'no-webgpu' : 'incompatible', detail: choice.reason, error };
  }
  if (report.verdict === 'software' && !options.allowSoftware) {
    const detail = `${report.reason}; ${choice.reason}`;
    return { ok: false, reason: 'software-gpu', detail, error: createError('WEBGPU_UNAVAILABLE', report.reason) };
  }
  const model = findModel(choice.modelId);
  const note = [choice.switched ? choice.reason : null, choice.warning].filter(Boolean).join('; ');
  return { ok: true, modelId: choice.modelId, downloadBytes: (model?.approxDownloadMB ?? 0) * 1e6, note };
}

export function createLlmLoader(options: { model: string; modelBase: string | null }): LlmLoader {
  return async ({ signal, onProgress }) => {
    const { WebLLMEngine } = await import('../engines/webllm/webllm-engine.ts');
    const engine = await WebLLMEngine.load({ modelId: options.model, modelBase: options.modelBase, signal, onProgress });
    return { engine, modelId: engine.modelId };
  };
}
