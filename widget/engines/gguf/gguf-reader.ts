/**
 * The reader on llama.cpp (@wllama/wllama): Gemma 3 270M fine-tuned to read one passage
 * (training/reader/README.md), given its prompt exactly as trained (reader-prompt.ts) and read
 * greedily, at most ANSWER_TOKENS tokens, to its <end_of_turn>.
 *
 * - The prompt is a raw completion with special tokens parsed (llama.cpp's completion endpoint
 *   tokenizes with `add_special` and `parse_special`): <start_of_turn>/<end_of_turn> become their
 *   control tokens. llama.cpp adds BOS itself where the file says so (`add_bos_token`, Gemma's
 *   case), so the text goes without "<bos>" then; otherwise with it. Either way one BOS.
 * - The budget is counted with the file's own tokenizer (spm-tokenizer.ts: wllama has no tokenize
 *   call), so the prompt llama.cpp sees is the one counted; llama.cpp's own count comes back in
 *   `usage.prompt_tokens` and is what the reply reports.
 * - The no-answer probability: llama.cpp's top token probabilities at the first reply position
 *   (`n_probs`, a softmax over the whole vocabulary, as training/reader/evaluate.py computes it),
 *   read for the first token of NO_ANSWER; 0 where it is not among them.
 */
import type { RawCompletionResponse, Wllama } from '@wllama/wllama';
import { createError } from '../../core/errors.ts';
import { readGgufMetadata } from '../../core/format/gguf-file.ts';
import type { PassageReader, ReaderCall, ReaderReply } from '../reader.ts';
import { toGgufError } from './gguf-errors.ts';
import type { GgufInspection } from './gguf-inspect.ts';
import { type GgufFileOptions, loadGguf } from './gguf-load.ts';
import { ANSWER_TOKENS, buildReaderPrompt, isNoAnswer, NO_ANSWER, normalizeReaderText, PROMPT_TOKENS } from './reader-prompt.ts';
import { SpmTokenizer } from './spm-tokenizer.ts';

export type GgufReaderOptions = GgufFileOptions;

/**
 * Top tokens llama.cpp reports at each reply position. Enough to hold the no-answer token where it
 * is a contender; where it is not, its probability is below the last of these (reported as 0).
 */
const TOP_PROBABILITIES = 10;

/** Prompt and reply, with room to spare (the reply's tokens go into the same context). */
const CONTEXT_TOKENS = 256;

/** One position's top tokens, as llama.cpp's server writes them (`probs_to_json`). */
interface TokenProbability {
  id?: number;
  token?: string;
  logprob?: number;
}

/** llama.cpp's own timings of the latest read, for the measurements (builder/bench/gguf-reader-bench.ts). */
export interface ReaderTimings {
  /** Prompt tokens evaluated; `cachedTokens` more were reused from the previous read's prefix. */
  promptTokens: number;
  cachedTokens: number;
  promptMs: number;
  replyTokens: number;
  replyMs: number;
}

export class GgufReader implements PassageReader {
  /** The latest read's timings as llama.cpp reports them; null before the first. */
  lastTimings: ReaderTimings | null = null;

  private constructor(
    private readonly wllama: Wllama,
    private readonly tokenizer: SpmTokenizer,
    private readonly url: string,
    readonly modelId: string,
    readonly inspection: GgufInspection,
    /** "WebAssembly, 2 threads (cross-origin isolated page)". */
    readonly description: string,
    /** Threads llama.cpp runs on (1 where the page is not cross-origin isolated). */
    readonly threads: number,
    /** Whether the file came from the browser's model cache (no download). */
    readonly fromCache: boolean,
  ) {}

  static async load(options: GgufReaderOptions): Promise<GgufReader> {
    // One slot: the loop reads one passage at a time, so wllama's four would only hold KV memory.
    // (Reads of one question share the prompt's first ~20 tokens, yet llama.cpp reported no cached
    // tokens, cache_n 0, with four slots or one: docs/benchmarks.md.)
    const loaded = await loadGguf({ ...options, contextTokens: CONTEXT_TOKENS, slots: 1 });
    try {
      const tokenizer = await readTokenizer(loaded.file, options.url);
      return new GgufReader(loaded.wllama, tokenizer, options.url, loaded.modelId, loaded.inspection, loaded.backend.reason, loaded.backend.threads, loaded.fromCache);
    } catch (error) {
      await loaded.wllama.exit().catch(() => undefined);
      throw error;
    }
  }

  async read(call: ReaderCall): Promise<ReaderReply> {
    const { signal } = call;
    if (signal?.aborted) throw createError('ABORTED');
    if (!this.wllama.isModelLoaded()) throw createError('MODEL_NOT_LOADED');
    const started = performance.now();
    const prompt = await buildReaderPrompt(call.question, call.passage, (text) => this.tokenizer.count(text, { parseSpecial: true }));
    const text = this.wllama.mustAddBosToken() ? prompt.text.slice('<bos>'.length) : prompt.text;
    const controller = new AbortController();
    const stop = () => controller.abort();
    signal?.addEventListener('abort', stop, { once: true });
    // Every read evaluates its whole prompt (`cache_prompt: false`, llama.cpp's own completion
    // parameter: wllama passes every option on as JSON but types it for chat only): after a read
    // stopped mid-reply, the prompt cache gave the same prompt another continuation (the base
    // model's reply changed after an abort, tests/e2e/gguf-reader.spec.ts), and reads of one
    // question reused none of their shared prefix anyway (docs/benchmarks.md).
    const params = {
      prompt: text,
      max_tokens: ANSWER_TOKENS,
      temperature: 0,
      stop: ['<end_of_turn>'],
      n_probs: TOP_PROBABILITIES,
      cache_prompt: false,
      abortSignal: controller.signal,
      stream: false as const,
    };
    let response: RawCompletionResponse;
    try {
      response = await this.wllama.createCompletion(params);
    } catch (error) {
      if (signal?.aborted) throw createError('ABORTED');
      throw toGgufError(error, { url: this.url, model: this.modelId });
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    if (signal?.aborted) throw createError('ABORTED');
    const t = response.timings;
    this.lastTimings = t ? { promptTokens: t.prompt_n, cachedTokens: t.cache_n, promptMs: t.prompt_ms, replyTokens: t.predicted_n, replyMs: t.predicted_ms } : null;
    const choice = response.choices[0];
    const reply = normalizeReaderText(choice?.text ?? '');
    const promptTokens = response.usage?.prompt_tokens ?? prompt.tokens;
    if (promptTokens > PROMPT_TOKENS) throw createError('READER_PROMPT_TOO_LONG', PROMPT_TOKENS, `llama.cpp counted ${promptTokens} tokens`);
    return {
      text: reply,
      noAnswer: isNoAnswer(reply),
      noAnswerProbability: this.noAnswerProbability(choice?.logprobs),
      passageRead: prompt.passage,
      promptTokens,
      ms: performance.now() - started,
    };
  }

  /** Ends llama.cpp's worker and frees its memory; the model stays in the cache. */
  async unload(): Promise<void> {
    await this.wllama.exit().catch(() => undefined);
  }

  /**
   * The first reply position's probability of NO_ANSWER's first token. llama.cpp writes its
   * top tokens as `logprobs.content[i].top_logprobs` (its OpenAI-style completion); the typed
   * `top_logprobs` records of older servers are read too. Null where none came back.
   */
  private noAnswerProbability(logprobs: unknown): number | null {
    const first = this.tokenizer.tokenize(NO_ANSWER)[0];
    const text = this.tokenizer.tokenText(first)?.replaceAll('\u2581', ' ');
    const content = (logprobs as { content?: { top_logprobs?: TokenProbability[] }[] } | null)?.content;
    const top = content?.[0]?.top_logprobs;
    if (Array.isArray(top)) {
      const hit = top.find((t) => (t.id !== undefined ? t.id === first : t.token === text));
      return hit?.logprob !== undefined ? Math.exp(hit.logprob) : 0;
    }
    const records = (logprobs as { top_logprobs?: Record<string, number>[] } | null)?.top_logprobs;
    if (Array.isArray(records) && records[0]) {
      const value = text !== undefined ? records[0][text] : undefined;
      return value !== undefined ? Math.exp(value) : 0;
    }
    return null;
  }
}

/** The file's tokenizer, from its metadata (the vocabulary sits in the first few MB). */
async function readTokenizer(file: Blob, url: string): Promise<SpmTokenizer> {
  for (let size = 16 << 20; ; size *= 2) {
    const head = new Uint8Array(await file.slice(0, Math.min(size, file.size)).arrayBuffer());
    try {
      const tokenizer = SpmTokenizer.fromGguf(readGgufMetadata(head, url));
      for (const marker of ['<start_of_turn>', '<end_of_turn>']) {
        if (tokenizer.tokenId(marker) === undefined) throw createError('READER_MODEL_UNSUPPORTED', url, `its vocabulary has no ${marker}: not a Gemma 3 model`);
      }
      return tokenizer;
    } catch (error) {
      const runsPast = error instanceof Error && /truncated metadata/.test(error.message);
      if (runsPast && size < file.size) continue;
      if (error instanceof Error && 'code' in error && error.code === 'READER_MODEL_UNSUPPORTED') throw error;
      throw createError('READER_MODEL_UNSUPPORTED', url, error instanceof Error ? error.message : String(error));
    }
  }
}
