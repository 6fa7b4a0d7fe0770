/**
 * The bridge from the chat to the local LLM: whether this device can run the configured model
 * (checked before anything is downloaded), and a loader that imports web-llm only when the
 * customer — or mode="llm" — asks for it, so the widget's first load stays small.
 */
import { checkWebGpu, chooseModelVariant } from '../engines/webllm/gpu-check.ts';
import { findModel } from '../engines/webllm/models.ts';
import type { LlmLoader } from './chat-session.ts';

export type LlmSupport =
  | { ok: true; modelId: string; downloadBytes: number; note: string }
  | { ok: false; reason: string };

/** WebGPU, shader-f16 and the model's variant, in words the UI can show. */
export async function probeLlmSupport(requested: string): Promise<LlmSupport> {
  const report = await checkWebGpu();
  const choice = chooseModelVariant(requested, report);
  if (!choice.ok) return { ok: false, reason: choice.reason };
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
