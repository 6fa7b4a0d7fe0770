/**
 * The GGUF answer engine: llama.cpp compiled to WebAssembly (@wllama/wllama), for devices where
 * web-llm cannot run — no WebGPU, a software adapter, a model web-llm has no build of. wllama runs
 * llama.cpp in its own Web Worker (the page's thread only posts messages), on WebGPU where the
 * adapter is a real GPU and on WebAssembly otherwise (gguf-backend.ts).
 *
 * Loading (download, cache, checks, backend): gguf-load.ts, shared with the reader.
 */
import type { Wllama } from '@wllama/wllama';
import { stripBidiControls } from '../../core/bidi-controls.ts';
import { createError } from '../../core/errors.ts';
import type { ContextPassage } from '../../search/search-service.ts';
import type { AnswerEngine, GenerateRequest, GenerateResult } from '../engine.ts';
import { buildGradePrompt, buildSupportPrompt, parseVerdicts, type JudgePrompt } from '../webllm/judge-prompt.ts';
import { buildAnswerPrompt, type ChatMessage } from '../webllm/prompt.ts';
import type { BackendChoice } from './gguf-backend.ts';
import { toGgufError } from './gguf-errors.ts';
import type { GgufInspection } from './gguf-inspect.ts';
import { loadGguf, probeGguf, type GgufFileOptions, type GgufProbe } from './gguf-load.ts';
import { renderPrompt } from './gguf-prompt.ts';

export interface GgufLoadOptions extends GgufFileOptions {
  /** Context window in tokens; the model's own is far larger than a 2-core CPU can fill in time. */
  contextWindow?: number;
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

export type { GgufProbe } from './gguf-load.ts';

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
    const contextWindow = options.contextWindow ?? DEFAULT_CONTEXT;
    const loaded = await loadGguf({ ...options, contextTokens: Math.ceil(contextWindow * CONTEXT_MARGIN) });
    return new GgufEngine(loaded.wllama, options.url, loaded.modelId, loaded.inspection, loaded.backend, contextWindow, loaded.fromCache, options.judge ?? false);
  }

  /**
   * Whether the model can be loaded, before any download: in the browser's model cache (offline
   * included), or served with a GGUF header of a supported architecture. Never throws.
   */
  static probe(url: string): Promise<GgufProbe> {
    return probeGguf(url);
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
