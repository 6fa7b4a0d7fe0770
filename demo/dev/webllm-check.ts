/**
 * Dev page behind tests/e2e/webllm.spec.ts: shows the WebGPU report and the chosen variant, and
 * exposes the engine's load on `window.webllmCheck` so a test can drive it and read progress and
 * errors. Not part of the widget's bundle.
 */
import { isHarelError } from '../../widget/core/errors.ts';
import { checkWebGpu, chooseModelVariant, type GpuReport, type VariantChoice } from '../../widget/engines/webllm/gpu-check.ts';
import type { LlmLoadProgress } from '../../widget/engines/webllm/progress.ts';
import { WebLLMEngine } from '../../widget/engines/webllm/webllm-engine.ts';

export interface LoadOutcome {
  ok: boolean;
  modelId: string | null;
  code: string | null;
  message: string | null;
  progress: LlmLoadProgress[];
}

export interface WebLlmCheck {
  report: Promise<GpuReport>;
  choose(modelId: string): Promise<VariantChoice>;
  /** Starts a load; `abort()` cancels the one in flight. */
  load(options: { modelId?: string; modelBase?: string | null }): Promise<LoadOutcome>;
  abort(): void;
  /** Progress events of the load in flight, as they arrive. */
  progress: LlmLoadProgress[];
}

const $ = (id: string) => document.getElementById(id) as HTMLElement;

const report = checkWebGpu();
let controller: AbortController | null = null;

const check: WebLlmCheck = {
  report,
  async choose(modelId) {
    return chooseModelVariant(modelId, await report);
  },
  async load({ modelId, modelBase = null }) {
    controller?.abort();
    const own = new AbortController();
    controller = own;
    check.progress = [];
    const status = $('load-status');
    status.dataset.state = 'loading';
    ($('cancel') as HTMLButtonElement).disabled = false;
    const progress = check.progress;
    try {
      const engine = await WebLLMEngine.load({
        modelId,
        modelBase,
        signal: own.signal,
        gpuReport: await report,
        onProgress: (p) => {
          progress.push(p);
          status.textContent = `${p.step} ${p.done}/${p.total ?? '?'} ${p.detail ?? ''}`;
        },
      });
      status.dataset.state = 'ready';
      status.textContent = `ready: ${engine.modelId}`;
      return { ok: true, modelId: engine.modelId, code: null, message: null, progress };
    } catch (error) {
      const code = isHarelError(error) ? error.code : 'UNKNOWN';
      const message = error instanceof Error ? error.message : String(error);
      status.dataset.state = 'error';
      status.dataset.code = code;
      status.textContent = `${code}: ${message}`;
      return { ok: false, modelId: null, code, message, progress };
    } finally {
      ($('cancel') as HTMLButtonElement).disabled = true;
    }
  },
  abort() {
    controller?.abort();
  },
  progress: [],
};

declare global {
  interface Window {
    webllmCheck: WebLlmCheck;
  }
}
window.webllmCheck = check;

void report.then(async (r) => {
  const gpu = $('gpu');
  gpu.dataset.state = r.verdict;
  gpu.textContent = JSON.stringify(r, null, 2);
  const choice = await check.choose(($('model') as HTMLInputElement).value);
  $('variant').textContent = JSON.stringify(choice, null, 2);
});

$('load').addEventListener('click', () => {
  const base = ($('model-base') as HTMLInputElement).value.trim();
  void check.load({ modelId: ($('model') as HTMLInputElement).value.trim(), modelBase: base || null });
});
$('cancel').addEventListener('click', () => check.abort());
