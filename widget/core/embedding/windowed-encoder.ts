/**
 * E5 embedding of whole texts, on any tokenizer and any encoder run: the text is tokenized without
 * truncation, cut into windows (./windows.ts), run as one padded batch, and mean-pooled per
 * window. The caller adds the `query: ` / `passage: ` prefix.
 *
 * Shared by the builder (passages, through transformers.js in Node: builder/embed/pipeline-parts.ts)
 * and the widget (questions, through onnxruntime-web: widget/embed/query-embedder.ts), so a
 * question and a passage of the same text meet at cosine 1. Free of both runtimes.
 */
import { poolWindows, windowsOf, type SpecialIds } from './windows.ts';

/** What an encoder needs from its runtime. */
export interface EncoderParts {
  /** The content token ids of `text`, no `<s>`/`</s>`, all of them (no truncation). */
  contentIds(text: string): number[];
  special: SpecialIds;
  /** The id that fills a shorter window up to the batch's length (masked out). */
  pad: number;
  /** Runs the encoder on `batch` rows of `length` ids; returns last_hidden_state [batch, length, dimensions]. */
  run(ids: BigInt64Array, mask: BigInt64Array, batch: number, length: number): Promise<{ data: Float32Array; dimensions: number }>;
}

export interface WindowedEncoder {
  /** Unit vectors, one per text, in order. */
  encode(texts: readonly string[]): Promise<Float32Array[]>;
  /** Tokens of `text` as the model sees it, `<s>` and `</s>` included, before windowing. */
  countTokens(text: string): number;
  /** The ids of `text`: `<s>`, the content tokens (all of them, before windowing), `</s>`. */
  tokenIds(text: string): number[];
}

export interface WindowedEncoderOptions {
  /** Tokens a window holds, `<s>` and `</s>` included (the model's maximum). */
  maxLength?: number;
  /**
   * Only the first window of each text (its first maxLength − 2 content tokens): what a question
   * is embedded from in the widget, so a hostile 7,000-character question costs one window, not
   * fifteen (10–20 s measured on the real E5). BM25 still reads all of it.
   */
  firstWindowOnly?: boolean;
}

export function createWindowedEncoder(parts: EncoderParts, options: WindowedEncoderOptions | number = {}): WindowedEncoder {
  const { maxLength = 512, firstWindowOnly = false } = typeof options === 'number' ? { maxLength: options } : options;
  const { special, pad } = parts;
  const contentIds = firstWindowOnly ? (text: string) => parts.contentIds(text).slice(0, maxLength - 2) : parts.contentIds;
  return {
    countTokens: (text) => contentIds(text).length + 2,
    tokenIds: (text) => [special.bos, ...contentIds(text), special.eos],
    async encode(texts) {
      if (texts.length === 0) return [];
      const windows = windowsOf(texts.map(contentIds), special, maxLength);
      const length = Math.max(...windows.map((w) => w.ids.length));
      const ids = new BigInt64Array(windows.length * length).fill(BigInt(pad));
      const mask = new BigInt64Array(windows.length * length);
      windows.forEach((w, i) => {
        w.ids.forEach((id, t) => {
          ids[i * length + t] = BigInt(id);
          mask[i * length + t] = 1n;
        });
      });
      const { data, dimensions } = await parts.run(ids, mask, windows.length, length);
      return poolWindows(windows, texts.length, data, length, dimensions);
    },
  };
}
