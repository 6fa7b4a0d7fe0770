/**
 * The bridge from the chat to the local LLM: whether this device can run a model and which engine
 * (engine-choice.ts: web-llm on a real GPU, else the GGUF engine on llama.cpp), checked before
 * anything is downloaded, and a loader that imports the engine only when the customer — or
 * mode="llm" — asks for it, so the widget's first load stays small.
 */
import { createError, type HarelError } from '../core/errors.ts';
import { checkWebGpu, chooseModelVariant, type GpuReport } from '../engines/webllm/gpu-check.ts';
import { findModel, GEMMA_MODELS } from '../engines/webllm/models.ts';
import type { LlmLoader } from './chat-session.ts';
import { chooseEngine, type EngineSetting } from './engine-choice.ts';

/** Why the model is not offered, as the UI words it (the technical reason goes in `detail`). */
export type LlmUnavailableReason = 'no-webgpu' | 'software-gpu' | 'incompatible';

export type LlmSupport =
  | { ok: true; engine: 'webllm' | 'gguf'; modelId: string; downloadBytes: number; note: string; gpu: GpuReport }
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
async function probeWebLlm(requested: string, report: GpuReport, options: { allowSoftware?: boolean }): Promise<LlmSupport> {
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
  return { ok: true, engine: 'webllm', modelId: choice.modelId, downloadBytes: (model?.approxDownloadMB ?? 0) * 1e6, note, gpu: report };
}

export interface LlmOptions {
  /** web-llm model id. */
  model: string;
  modelBase: string | null;
  /** The llm-engine attribute. */
  engine: EngineSetting;
  /** The GGUF file's absolute URL (gguf-location.ts). */
  ggufUrl: string;
  /** mode="llm": the model was asked for, a software WebGPU adapter is accepted for web-llm. */
  allowSoftware?: boolean;
  /** The gguf-answers attribute: 'measured' (the model's measured gate, answer-gate.ts) or 'all'. */
  ggufAnswers?: 'measured' | 'all';
}

/**
 * Which engine can run here (engine-choice.ts), with what the offer shows: its model and download
 * size. The GGUF engine's probe reads the file's first bytes (or finds it in the browser's cache).
 */
export async function probeLlmSupport(options: LlmOptions): Promise<LlmSupport> {
  const report = await checkWebGpu();
  if (options.engine === 'webllm') return probeWebLlm(options.model, report, options);
  const { GgufEngine } = await import('../engines/gguf/gguf-engine.ts');
  const gguf = await GgufEngine.probe(options.ggufUrl);
  const { gateAnswersAny, gateFor } = await import('../engines/gguf/answer-gate.ts');
  const decision = chooseEngine(options.engine, {
    gpu: report,
    webllmVariant: chooseModelVariant(options.model, report),
    deviceMemoryGB: deviceMemory(),
    hasWebAssembly: typeof WebAssembly === 'object',
    ggufAvailable: gguf.ok,
    ggufAnswers: gguf.ok ? gateAnswersAny(gateFor(gguf.modelId, options.ggufAnswers ?? 'measured')) : undefined,
    ggufModelId: gguf.ok ? gguf.modelId : undefined,
    allowSoftwareGpu: options.allowSoftware,
  });
  if (decision.engine === 'webllm') return probeWebLlm(options.model, report, options);
  if (decision.engine === 'gguf' && gguf.ok) {
    return { ok: true, engine: 'gguf', modelId: gguf.modelId, downloadBytes: gguf.cached ? 0 : gguf.bytes, note: decision.reason, gpu: report };
  }
  const error = gguf.ok ? createError('WEBGPU_UNAVAILABLE', decision.reason) : gguf.error;
  return { ok: false, reason: 'incompatible', detail: decision.reason, error };
}

/** Loads the engine the probe chose (`pick`: the latest support report's engine, web-llm by default). */
export function createLlmLoader(options: LlmOptions & { pick: () => LlmSupport | null }): LlmLoader {
  return async ({ signal, onProgress }) => {
    const support = options.pick();
    const useGguf = support?.ok ? support.engine === 'gguf' : options.engine === 'gguf';
    if (useGguf) {
      const { GgufEngine } = await import('../engines/gguf/gguf-engine.ts');
      const { GatedEngine, gateFor } = await import('../engines/gguf/answer-gate.ts');
      const { ExtractiveEngine } = await import('../engines/extractive.ts');
      const engine = await GgufEngine.load({ url: options.ggufUrl, signal, onProgress, gpuReport: support?.ok ? support.gpu : null });
      // Quotation answers where the model has not earned it (answer-gate.ts); the model elsewhere.
      const gated = new GatedEngine(engine, new ExtractiveEngine(), gateFor(engine.modelId, options.ggufAnswers ?? 'measured'));
      return { engine: gated, modelId: `${engine.modelId} (GGUF · ${engine.backend.reason.split(';')[0]})` };
    }
    const { WebLLMEngine } = await import('../engines/webllm/webllm-engine.ts');
    const engine = await WebLLMEngine.load({ modelId: options.model, modelBase: options.modelBase, signal, onProgress });
    return { engine, modelId: engine.modelId };
  };
}

function deviceMemory(): number | null {
  const memory = (navigator as Navigator & { deviceMemory?: number }).deviceMemory;
  return typeof memory === 'number' ? memory : null;
}
