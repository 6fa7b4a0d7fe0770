/**
 * Which local model engine answers on this device, decided before anything is downloaded:
 *
 *   1. web-llm, where WebGPU has a real (hardware) adapter, web-llm has a build of the model this
 *      adapter can run (shader-f16 or a q4f32 twin), and the device reports at least 4 GB of memory
 *      (or does not say: `navigator.deviceMemory` is Chromium-only);
 *   2. else the GGUF engine (llama.cpp in WebAssembly), where WebAssembly exists, the site serves
 *      a GGUF model (the probe found it, or it is already in the browser's cache), and that model
 *      was not measured to answer nothing better than quotation (its gate, answer-gate.ts: a
 *      download of hundreds of MB for answers quotation would give anyway is no offer);
 *   3. else none: the extractive answerer, which needs neither, answers by quotation.
 *
 * `llm-engine="webllm"` and `llm-engine="gguf"` skip the choice and ask for one engine; "auto"
 * applies the rule above.
 */
import type { GpuReport, VariantChoice } from '../engines/webllm/gpu-check.ts';

export type EngineSetting = 'auto' | 'webllm' | 'gguf';
export type EngineKind = 'webllm' | 'gguf' | 'extractive';

/** Below this web-llm's 1–2.5 GB of weights and activations crowd out the page (and the GPU driver). */
export const WEBLLM_MIN_MEMORY_GB = 4;

export interface DeviceFacts {
  gpu: GpuReport;
  /** web-llm's variant check for the configured model on this adapter. */
  webllmVariant: VariantChoice;
  /** navigator.deviceMemory (GB, rounded down by the browser), null where the browser does not tell. */
  deviceMemoryGB: number | null;
  hasWebAssembly: boolean;
  /** Whether the GGUF model is reachable (served, or cached for offline use). */
  ggufAvailable: boolean;
  /**
   * Whether the served GGUF model may answer any question (its measured gate, answer-gate.ts);
   * false for a model measured to lose to quotation everywhere. Absent: yes.
   */
  ggufAnswers?: boolean;
  /** The GGUF model's name, for the reason. */
  ggufModelId?: string;
  /** mode="llm": a software WebGPU adapter is accepted for web-llm when it was asked for by name. */
  allowSoftwareGpu?: boolean;
}

export interface EngineDecision {
  engine: EngineKind;
  /** Why, in words, for the details panel. */
  reason: string;
}

export function chooseEngine(setting: EngineSetting, facts: DeviceFacts): EngineDecision {
  const webllm = webllmFits(facts);
  const gguf = ggufFits(facts);
  if (setting === 'webllm') return webllm.ok ? { engine: 'webllm', reason: webllm.reason } : { engine: 'extractive', reason: webllm.reason };
  if (setting === 'gguf') return gguf.ok ? { engine: 'gguf', reason: gguf.reason } : { engine: 'extractive', reason: gguf.reason };
  if (webllm.ok) return { engine: 'webllm', reason: webllm.reason };
  if (gguf.ok && facts.ggufAnswers === false) {
    const name = facts.ggufModelId ?? 'the GGUF model';
    return { engine: 'extractive', reason: `${name} was measured to answer no question better than quotation, so it is not offered (gguf-answers="all" offers it anyway); web-llm: ${webllm.reason}` };
  }
  if (gguf.ok) return { engine: 'gguf', reason: `${gguf.reason}; web-llm not chosen: ${webllm.reason}` };
  return { engine: 'extractive', reason: `web-llm: ${webllm.reason}; GGUF: ${gguf.reason}` };
}

function webllmFits(facts: DeviceFacts): { ok: boolean; reason: string } {
  if (facts.gpu.verdict === 'unsupported') return { ok: false, reason: facts.gpu.reason };
  if (!facts.webllmVariant.ok) return { ok: false, reason: facts.webllmVariant.reason };
  if (facts.gpu.verdict === 'software' && !facts.allowSoftwareGpu) return { ok: false, reason: facts.gpu.reason };
  if (facts.deviceMemoryGB !== null && facts.deviceMemoryGB < WEBLLM_MIN_MEMORY_GB) {
    return { ok: false, reason: `the device reports ${facts.deviceMemoryGB} GB of memory (web-llm needs ${WEBLLM_MIN_MEMORY_GB})` };
  }
  return { ok: true, reason: `WebGPU: ${facts.webllmVariant.modelId}` };
}

function ggufFits(facts: DeviceFacts): { ok: boolean; reason: string } {
  if (!facts.hasWebAssembly) return { ok: false, reason: 'this browser has no WebAssembly' };
  if (!facts.ggufAvailable) return { ok: false, reason: 'no GGUF model is served at the model-base (run npx harel-builder models fetch)' };
  return { ok: true, reason: 'GGUF model on llama.cpp (WebAssembly, or WebGPU on a real GPU)' };
}
