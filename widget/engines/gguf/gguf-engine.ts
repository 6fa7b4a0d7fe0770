/**
 * The GGUF answer engine: llama.cpp compiled to WebAssembly (@wllama/wllama), for devices where
 * web-llm cannot run — no WebGPU, a software adapter, a model web-llm has no build of. wllama runs
 * llama.cpp in its own Web Worker (the page's thread only posts messages), on WebGPU where the
 * adapter is a real GPU and on WebAssembly otherwise (gguf-backend.ts).
 *
 * Loading: a Range request for the file's first 64 KB refuses a missing or wrong file before the
 * download; wllama then downloads it into the origin-private file system (OPFS), where it stays
 * for offline use (`allowOffline`: a cached model loads with the network gone); the downloaded
 * file is inspected (gguf-inspect.ts: truncation, architecture, prompt format) before llama.cpp
 * starts. The caller's signal cancels every step.
 */
import { Wllama, type WllamaLogger } from '@wllama/wllama';
// no-inline: a library build (vite.widget.config.ts) would otherwise put the 10 MB runtime into
// this chunk as base64; as a file beside the bundle it is fetched (and cached) only for this engine.
import wllamaWasmUrl from '@wllama/wllama/esm/wasm/wllama.wasm?url&no-inline';
import { stripBidiControls } from '../../core/bidi-controls.ts';
import { createError, type HarelError } from '../../core/errors.ts';
import type { ContextPassage } from '../../search/search-service.ts';
import type { AnswerEngine, GenerateRequest, GenerateResult } from '../engine.ts';
import type { GpuReport } from '../webllm/gpu-check.ts';
import { buildGradePrompt, buildSupportPrompt, parseVerdicts, type JudgePrompt } from '../webllm/judge-prompt.ts';
import type { LlmLoadProgress } from '../webllm/progress.ts';
import { buildAnswerPrompt, type ChatMessage } from '../webllm/prompt.ts';
import { chooseGgufBackend, type BackendChoice } from './gguf-backend.ts';
import { toGgufError } from './gguf-errors.ts';
import { inspectGgufBlob, probeGgufHeader, PROBE_BYTES, type GgufInspection } from './gguf-inspect.ts';
import { ggufModelName } from './gguf-location.ts';
import { renderPrompt } from './gguf-prompt.ts';

export interface GgufLoadOptions {
  /** The .gguf file's absolute URL (gguf-location.ts). */
  url: string;
  signal?: AbortSignal;
  onProgress?: (progress: LlmLoadProgress) => void;
  /** The WebGPU report, when made already: decides WebGPU or WebAssembly. */
  gpuReport?: GpuReport | null;
  /** Context window in tokens; the model's own is far larger than a 2-core CPU can fill in time. */
  contextWindow?: number;
  /** Forces a backend's thread count (tests, measurements); default from the page's isolation. */
  threads?: number;
  /**
   * Whether the loop's grade and ground steps ask the model (one more full prompt each). Off by
   * default: measured on the 270M base model, its verdicts add nothing the calibrated threshold
   * and the lexical check do not (README, "The GGUF engine"), at twice to three times the time.
   */
  judge?: boolean;
}

/** Timings of the last `generate`, for the details panel and the measurements. */
export interface GenerationStats {
  /** From the request to the first streamed text, prompt processing included. */
  firstTokenMs: number | null;
  promptTokens: number;
  tokens: number;
  tokensPerSecond: number | null;
  totalMs: number;
  /** The model's text as written, before the loop parses its markers. */
  text: string;
  /** The source numbers the prompt gave it: a valid `[n]` is one of these. */
  sources: number[];
}

/** Generations kept in `GgufEngine.log` (the measurements read them; a chat never grows it past this). */
const LOG_SIZE = 20;

export type GgufProbe =
  | { ok: true; modelId: string /** The file's size (Content-Range), 0 when the server did not say. */; bytes: number; cached: boolean }
  | { ok: false; modelId: string; error: HarelError };

/**
 * The prompt budget: rules, the best sources cut to fit, the question and the answer. Small on
 * purpose: measured on this project's 2-core machine (WebAssembly, 1 thread, under load), llama.cpp
 * read ~14 prompt tokens/s and wrote ~6 tokens/s with Gemma 3 270M, so every 100 prompt tokens
 * cost ~7 s before the first word. A device with WebGPU or threads can afford `contextWindow: 4096`.
 */
const DEFAULT_CONTEXT = 1024;

/** The answer's token cap: five short sentences; a base model that rambles is cut here. */
const ANSWER_TOKENS = 160;

/**
 * llama.cpp's context is this much larger than the budget the prompts are cut to: they are cut by
 * an estimate (webllm/budget.ts), and Gemma's tokenizer spends more on Hebrew than it assumes (a
 * 2,048-token budget came to 2,051 real tokens). The spare slots cost only KV memory.
 */
const CONTEXT_MARGIN = 1.5;

export class GgufEngine implements AnswerEngine {
  readonly mode = 'llm' as const;
  readonly engineName = 'gguf' as const;
  /** The latest generations, oldest first (a retried question generates twice). */
  readonly log: GenerationStats[] = [];
  /** Present only with `judge`: the loop then grades and grounds with the model (engine.ts). */
  readonly gradePassages?: AnswerEngine['gradePassages'];
  readonly checkSupport?: AnswerEngine['checkSupport'];

  private constructor(
    private readonly wllama: Wllama,
    readonly url: string,
    readonly modelId: string,
    readonly inspection: GgufInspection,
    readonly backend: BackendChoice,
    readonly contextWindow: number,
    /** Whether the file came from the browser's model cache (no download). */
    readonly fromCache: boolean,
    judge: boolean,
  ) {
    if (judge) {
      this.gradePassages = (question, passages, signal) => this.judgeRelevance(question, passages, signal);
      this.checkSupport = (claims, signal) => this.judgeSupport(claims, signal);
    }
  }

  static async load(options: GgufLoadOptions): Promise<GgufEngine> {
    const { url, signal } = options;
    const modelId = ggufModelName(url);
    if (signal?.aborted) throw createError('MODEL_LOAD_ABORTED', modelId);
    const gpu = options.gpuReport ?? null;
    const isolated = typeof crossOriginIsolated !== 'undefined' && crossOriginIsolated;
    const backend = chooseGgufBackend({ gpu, crossOriginIsolated: isolated, cores: navigator.hardwareConcurrency || 1 });
    const threads = options.threads ?? backend.threads;
    const contextWindow = options.contextWindow ?? DEFAULT_CONTEXT;
    const wllama = new Wllama({ default: wllamaWasmUrl }, { allowOffline: true, suppressNativeLog: true, logger: QUIET_LOGGER });
    const stop = () => void wllama.exit().catch(() => undefined);
    signal?.addEventListener('abort', stop, { once: true });
    try {
      const cached = (await wllama.modelManager.getModels()).find((m) => m.url === url);
      if (!cached) await probe(url, signal);
      const progress = (loaded: number, total: number) => options.onProgress?.({ step: 'download', done: loaded, total, detail: 'GGUF model' });
      const model = cached ?? (await wllama.modelManager.downloadModel(url, { signal, progressCallback: ({ loaded, total }) => progress(loaded, total) }));
      if (cached) progress(cached.size, cached.size);
      if (signal?.aborted) throw createError('MODEL_LOAD_ABORTED', modelId);
      const blobs = await model.open();
      const inspection = await inspectGgufBlob(blobs[0], url);
      options.onProgress?.({ step: 'compile', done: 0, total: 1, detail: `starting llama.cpp: ${backend.reason}` });
      await wllama.loadModel(blobs, { n_ctx: Math.ceil(contextWindow * CONTEXT_MARGIN), n_threads: threads, n_gpu_layers: backend.gpuLayers });
      if (signal?.aborted) throw createError('MODEL_LOAD_ABORTED', modelId);
      options.onProgress?.({ step: 'compile', done: 1, total: 1, detail: `ready: ${backend.reason}` });
      const chosen = { ...backend, threads: wllama.getNumThreads() };
      return new GgufEngine(wllama, url, modelId, inspection, chosen, contextWindow, Boolean(cached), options.judge ?? false);
    } catch (error) {
      await wllama.exit().catch(() => undefined);
      throw signal?.aborted ? createError('MODEL_LOAD_ABORTED', modelId) : toGgufError(error, { url, model: modelId });
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }

  /**
   * Whether the model can be loaded, before any download: in the browser's model cache (offline
   * included), or served with a GGUF header of a supported architecture. Never throws.
   */
  static async probe(url: string): Promise<GgufProbe> {
    const modelId = ggufModelName(url);
    try {
      const wllama = new Wllama({ default: wllamaWasmUrl }, { allowOffline: true, suppressNativeLog: true, logger: QUIET_LOGGER });
      const cached = (await wllama.modelManager.getModels().catch(() => [])).find((m) => m.url === url);
      if (cached) return { ok: true, modelId, bytes: cached.size, cached: true };
      const bytes = await probe(url, undefined);
      return { ok: true, modelId, bytes, cached: false };
    } catch (error) {
      return { ok: false, modelId, error: toGgufError(error, { url, model: modelId }) };
    }
  }

  /** "gemma-3-270m-q4_k_m · WebAssembly, 1 thread": what the badge's title and the details show. */
  get description(): string {
    return `${this.inspection.summary.name} (${this.modelId}, ${this.inspection.format}) · ${this.backend.reason}`;
  }

  async generate(request: GenerateRequest): Promise<GenerateResult> {
    const prompt = buildAnswerPrompt(request, { contextWindow: this.contextWindow, answerTokens: ANSWER_TOKENS });
    const started = performance.now();
    let first: number | null = null;
    let tokens = 0;
    let text = '';
    let timings: { prompt_n: number; predicted_n: number; predicted_per_second: number } | null = null;
    await this.run(request.signal, async (abortSignal) => {
      const stream = await this.complete(prompt.messages, { max_tokens: prompt.answerTokens, temperature: 0.2, abortSignal });
      for await (const delta of stream) {
        if (delta.timings) timings = delta.timings;
        if (!delta.text) continue;
        first ??= performance.now() - started;
        tokens++;
        text += delta.text;
        // The model's words are engine text: no bidi controls (see webllm-engine.ts).
        request.onText?.(stripBidiControls(text));
      }
    });
    const totalMs = performance.now() - started;
    const t = timings as { prompt_n: number; predicted_n: number; predicted_per_second: number } | null;
    this.log.push({
      firstTokenMs: first,
      promptTokens: t?.prompt_n ?? 0,
      tokens: t?.predicted_n ?? tokens,
      tokensPerSecond: t?.predicted_per_second ?? (first !== null && totalMs > first ? (tokens - 1) / ((totalMs - first) / 1000) : null),
      totalMs,
      text,
      sources: prompt.sources,
    });
    if (this.log.length > LOG_SIZE) this.log.shift();
    return { text: stripBidiControls(text).trim() };
  }

  /** Is each passage relevant? The grade step's question, asked of the model (also used by the measurements). */
  async judgeRelevance(question: string, passages: readonly ContextPassage[], signal?: AbortSignal): Promise<boolean[]> {
    const prompt = buildGradePrompt(
      question,
      passages.map((p) => `${p.title}: ${p.text}`),
      this.contextWindow,
    );
    return this.judge(prompt, passages.length, signal);
  }

  /** Is each sentence supported by its sources? The ground step's question, asked of the model. */
  async judgeSupport(claims: readonly { sentence: string; sources: string[] }[], signal?: AbortSignal): Promise<boolean[]> {
    const prompt = buildSupportPrompt(claims, this.contextWindow);
    return this.judge(prompt, claims.length, signal);
  }

  /** Ends llama.cpp's worker and frees its memory; the model stays in the cache. */
  async unload(): Promise<void> {
    await this.wllama.exit().catch(() => undefined);
  }

  private async judge(prompt: JudgePrompt, count: number, signal: AbortSignal | undefined): Promise<boolean[]> {
    let reply = '';
    await this.run(signal, async (abortSignal) => {
      for await (const delta of await this.complete(prompt.messages, { max_tokens: prompt.answerTokens, temperature: 0, abortSignal })) reply += delta.text;
    });
    return parseVerdicts(reply, count);
  }

  /**
   * One streamed completion in the file's prompt format: its own chat template through llama.cpp's
   * chat endpoint, else the raw text of gguf-prompt.ts through the completion endpoint.
   */
  private async complete(
    messages: readonly ChatMessage[],
    params: { max_tokens: number; temperature: number; abortSignal: AbortSignal },
  ): Promise<AsyncIterable<{ text: string; timings?: { prompt_n: number; predicted_n: number; predicted_per_second: number } }>> {
    const format = this.inspection.format;
    if (format === 'chat-template') {
      const stream = await this.wllama.createChatCompletion({ messages: messages.map((m) => ({ ...m })), stream: true, ...params });
      return mapStream(stream, (chunk) => ({ text: chunk.choices[0]?.delta?.content ?? '', timings: chunk.timings }));
    }
    const raw = renderPrompt(messages, format);
    const stream = await this.wllama.createCompletion({ prompt: raw.text, stop: raw.stop, stream: true, ...params });
    return mapStream(stream, (chunk) => ({ text: chunk.choices[0]?.text ?? '', timings: chunk.timings }));
  }

  /** One model call: the caller's signal (Esc, a new question) stops generation; errors get codes. */
  private async run(signal: AbortSignal | undefined, call: (abortSignal: AbortSignal) => Promise<void>): Promise<void> {
    if (signal?.aborted) throw createError('ABORTED');
    if (!this.wllama.isModelLoaded()) throw createError('MODEL_NOT_LOADED');
    const controller = new AbortController();
    const stop = () => controller.abort();
    signal?.addEventListener('abort', stop, { once: true });
    try {
      await call(controller.signal);
      if (signal?.aborted) throw createError('ABORTED');
    } catch (error) {
      if (signal?.aborted) throw createError('ABORTED');
      throw toGgufError(error, { url: this.url, model: this.modelId });
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }
}

async function* mapStream<T, U>(stream: AsyncIterable<T>, map: (chunk: T) => U): AsyncIterable<U> {
  for await (const chunk of stream) yield map(chunk);
}

/** The early check: the file is there, and its first bytes are a GGUF of a known architecture. */
async function probe(url: string, signal: AbortSignal | undefined): Promise<number> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { Range: `bytes=0-${PROBE_BYTES - 1}` }, signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw createError('MODEL_DOWNLOAD_FAILED', url, error instanceof Error ? error.message : String(error));
  }
  if (response.status === 404 || response.status === 410) throw createError('GGUF_MODEL_MISSING', url, `HTTP ${response.status}`);
  if (!response.ok) throw createError('MODEL_DOWNLOAD_FAILED', url, `HTTP ${response.status}`);
  // A server that ignores Range sends the whole file: read the first chunk only, then let go.
  const bytes = await readPrefix(response, PROBE_BYTES);
  probeGgufHeader(bytes, url);
  const total = /\/(\d+)$/.exec(response.headers.get('Content-Range') ?? '')?.[1] ?? (response.status === 200 ? response.headers.get('Content-Length') : null);
  return total ? Number(total) : 0;
}

async function readPrefix(response: Response, limit: number): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array(await response.arrayBuffer()).subarray(0, limit);
  const parts: Uint8Array[] = [];
  let length = 0;
  while (length < limit) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(value);
    length += value.length;
  }
  void reader.cancel().catch(() => undefined);
  const out = new Uint8Array(Math.min(length, limit));
  let at = 0;
  for (const part of parts) {
    const take = part.subarray(0, Math.min(part.length, out.length - at));
    out.set(take, at);
    at += take.length;
    if (at >= out.length) break;
  }
  return out;
}

/** wllama logs every download step and llama.cpp line at debug level: only warnings and errors reach the console. */
const QUIET_LOGGER: WllamaLogger = {
  debug: () => undefined,
  log: () => undefined,
  warn: (...args: unknown[]) => console.warn('[wllama]', ...args),
  error: (...args: unknown[]) => console.error('[wllama]', ...args),
};
