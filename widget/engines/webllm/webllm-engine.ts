/**
 * The LLM answer engine: Gemma through web-llm in a dedicated worker. Loading checks the GPU
 * first and picks a variant it can run, reads the model's descriptor files (clear errors, the
 * exact download size), then lets web-llm download, cache and compile, reporting progress; the
 * caller's signal cancels it at any point by ending the worker.
 */
import type { AppConfig, ChatCompletionMessageParam, WebWorkerMLCEngine } from '@mlc-ai/web-llm';
import { ModuleWorker } from '../../assets.ts';
import { stripBidiControls } from '../../core/bidi-controls.ts';
import { createError, type HarelError } from '../../core/errors.ts';
import type { ContextPassage } from '../../search/search-service.ts';
import type { AnswerEngine, GenerateRequest, GenerateResult } from '../engine.ts';
import { toHarelError } from './error-map.ts';
import { checkWebGpu, chooseModelVariant, type GpuReport, type VariantChoice } from './gpu-check.ts';
import { buildGradePrompt, buildSupportPrompt, parseVerdicts, type JudgePrompt } from './judge-prompt.ts';
import { buildAppConfig, DEFAULT_MODEL_ID, findModel, GEMMA_MODELS, modelFilesUrl, modelRecord, type CacheBackend, type GemmaModel } from './models.ts';
import { preflightModel } from './preflight.ts';
import { mapInitProgress, type LlmLoadProgress } from './progress.ts';
import { buildAnswerPrompt } from './prompt.ts';
import { LlmWorkerPort } from './worker-port.ts';

export interface WebLLMLoadOptions {
  /** The requested web-llm model id; a compatible variant may replace it (see `choice`). */
  modelId?: string;
  /** A self-hosted folder or URL with the model files (see models.ts); null for the public hubs. */
  modelBase?: string | null;
  cacheBackend?: CacheBackend;
  signal?: AbortSignal;
  onProgress?: (progress: LlmLoadProgress) => void;
  /** Makes the LLM worker; tests and embedders with their own bundling pass one. */
  createWorker?: () => Worker;
  /** A report already made (the UI showed it before the customer chose to load): skips a second check. */
  gpuReport?: GpuReport;
}

type ReadyChoice = Extract<VariantChoice, { ok: true }>;

export class WebLLMEngine implements AnswerEngine {
  readonly mode = 'llm' as const;

  private constructor(
    private readonly engine: WebWorkerMLCEngine,
    private readonly port: LlmWorkerPort,
    readonly model: GemmaModel,
    readonly choice: ReadyChoice,
    readonly gpu: GpuReport,
    readonly appConfig: AppConfig,
  ) {}

  get modelId(): string {
    return this.model.id;
  }

  static async load(options: WebLLMLoadOptions = {}): Promise<WebLLMEngine> {
    const requested = options.modelId ?? DEFAULT_MODEL_ID;
    const signal = options.signal;
    if (signal?.aborted) throw createError('MODEL_LOAD_ABORTED', requested);

    const gpu = options.gpuReport ?? (await checkWebGpu());
    const choice = chooseModelVariant(requested, gpu);
    if (!choice.ok) throw choiceError(choice);
    const model = findModel(choice.modelId) as GemmaModel;
    const appConfig = buildAppConfig({ modelBase: options.modelBase, baseUrl: pageUrl(), cacheBackend: options.cacheBackend });
    const record = modelRecord(model, { modelBase: options.modelBase, baseUrl: pageUrl() });
    const context = { modelId: model.id, modelUrl: modelFilesUrl(record) };

    const webllm = await abortable(import('@mlc-ai/web-llm'), signal, model.id);
    const cached = await webllm.hasModelInCache(model.id, appConfig).catch(() => false);
    let weightBytes: number | null = null;
    if (!cached) {
      const preflight = await preflightModel(record, { signal, onProgress: options.onProgress });
      weightBytes = preflight.weightBytes;
    }

    const port = new LlmWorkerPort((options.createWorker ?? defaultWorker)());
    const stopOnAbort = () => port.terminate();
    signal?.addEventListener('abort', stopOnAbort, { once: true });
    const workerDied = new Promise<never>((_, reject) => {
      port.onFailure((message) => reject(createError('MODEL_LOAD_FAILED', model.id, `the LLM worker failed: ${message}`)));
    });
    try {
      const creating = webllm.CreateWebWorkerMLCEngine(port, model.id, {
        appConfig,
        initProgressCallback: (report) => options.onProgress?.(mapInitProgress(report, weightBytes)),
      });
      const engine = await abortable(Promise.race([creating, workerDied]), signal, model.id);
      // web-llm swallows its own abort and resolves reload(); a load cut short must not pass as loaded.
      if (signal?.aborted) throw createError('MODEL_LOAD_ABORTED', model.id);
      return new WebLLMEngine(engine, port, model, choice, gpu, appConfig);
    } catch (error) {
      port.terminate();
      throw signal?.aborted ? createError('MODEL_LOAD_ABORTED', model.id) : toHarelError(error, context);
    } finally {
      signal?.removeEventListener('abort', stopOnAbort);
    }
  }

  /** Whether the model's files are already in the browser's cache ("no download needed"). */
  static async hasModelInCache(modelId: string, appConfig: AppConfig = buildAppConfig({ baseUrl: pageUrl() })): Promise<boolean> {
    const webllm = await import('@mlc-ai/web-llm');
    return webllm.hasModelInCache(modelId, appConfig).catch(() => false);
  }

  get contextWindow(): number {
    return this.model.contextWindow;
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const prompt = buildAnswerPrompt(request, { contextWindow: this.contextWindow });
    return this.run(request.signal, async () => {
      const stream = await this.engine.chat.completions.create({
        messages: prompt.messages as ChatCompletionMessageParam[],
        stream: true,
        max_tokens: prompt.answerTokens,
        // Low temperature: the answer should restate the sources, not vary.
        temperature: 0.2,
      });
      let text = '';
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta?.content ?? '';
        if (!delta) continue;
        text += delta;
        // The model's words are engine text: without bidi controls it can neither reverse what it
        // shows nor open a run of "document text" around its own markers (answer/document-text.ts).
        request.onText?.(stripBidiControls(text));
      }
      return { text: stripBidiControls(text).trim() };
    });
  }

  async gradePassages(question: string, passages: readonly ContextPassage[], signal?: AbortSignal): Promise<boolean[]> {
    const prompt = buildGradePrompt(
      question,
      passages.map((p) => `${p.title}: ${p.text}`),
      this.contextWindow,
    );
    return this.run(signal, () => this.judge(prompt, passages.length));
  }

  async checkSupport(claims: readonly { sentence: string; sources: string[] }[], signal?: AbortSignal): Promise<boolean[]> {
    const prompt = buildSupportPrompt(claims, this.contextWindow);
    return this.run(signal, () => this.judge(prompt, claims.length));
  }

  /** Frees the GPU memory and ends the worker; the engine cannot be used afterwards. */
  async unload(): Promise<void> {
    if (this.port.isTerminated) return;
    await this.engine.unload().catch(() => undefined);
    this.port.terminate();
  }

  private async judge(prompt: JudgePrompt, count: number): Promise<boolean[]> {
    const reply = await this.engine.chat.completions.create({
      messages: prompt.messages as ChatCompletionMessageParam[],
      stream: false,
      max_tokens: prompt.answerTokens,
      temperature: 0,
    });
    return parseVerdicts(reply.choices[0]?.message?.content ?? '', count);
  }

  /** Runs one model call with the caller's signal stopping generation, and errors mapped to codes. */
  private async run<T>(signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
    if (signal?.aborted) throw createError('ABORTED');
    if (this.port.isTerminated) throw createError('MODEL_NOT_LOADED');
    const stop = () => this.engine.interruptGenerate();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      const result = await call();
      // interruptGenerate() ends the stream normally: the partial answer must not pass as complete.
      if (signal?.aborted) throw createError('ABORTED');
      return result;
    } catch (error) {
      if (signal?.aborted) throw createError('ABORTED');
      throw toHarelError(error, { modelId: this.model.id, modelUrl: this.appConfig.model_list[0]?.model ?? '' });
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }
}

function choiceError(choice: Extract<VariantChoice, { ok: false }>): HarelError {
  switch (choice.code) {
    case 'WEBGPU_UNAVAILABLE':
      return createError('WEBGPU_UNAVAILABLE', choice.reason);
    case 'SHADER_F16_MISSING':
      return createError('SHADER_F16_MISSING', choice.requested);
    case 'MODEL_UNKNOWN':
      return createError('MODEL_UNKNOWN', choice.requested, GEMMA_MODELS.map((m) => m.id).join(', '));
  }
}

/** Rejects with MODEL_LOAD_ABORTED as soon as the signal fires, whatever `work` is doing. */
function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined, modelId: string): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(createError('MODEL_LOAD_ABORTED', modelId));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(createError('MODEL_LOAD_ABORTED', modelId));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function defaultWorker(): Worker {
  // See widget/assets.ts: the pattern Vite bundles, started cross-origin through a blob: shim.
  const Worker = ModuleWorker;
  return new Worker(new URL('./llm-worker.ts', import.meta.url), { type: 'module', name: 'harel-llm' });
}

function pageUrl(): string | undefined {
  return typeof location === 'undefined' ? undefined : location.href;
}
