/**
 * E5 embedding of whole texts on a transformers.js feature-extraction pipeline, in Node (the
 * builder's passages) and in the browser (the widget's queries): the text is tokenized without
 * truncation, cut into windows (widget/core/embedding/windows.ts), run as one padded batch, and
 * mean-pooled per window. The caller adds the `query: ` / `passage: ` prefix.
 */
import { Tensor, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { poolWindows, windowsOf, type SpecialIds } from '../core/embedding/windows.ts';

export interface WindowedEncoder {
  /** Unit vectors, one per text, in order. */
  encode(texts: readonly string[]): Promise<Float32Array[]>;
  /** Tokens of `text` as the model sees it, `<s>` and `</s>` included, before windowing. */
  countTokens(text: string): number;
  /** The ids of `text`: `<s>`, the content tokens (all of them, before windowing), `</s>`. */
  tokenIds(text: string): number[];
}

interface TokenizerInternals {
  _tokenizer?: { model?: { fuse_unk?: boolean } };
}

function specialIds(extractor: FeatureExtractionPipeline): SpecialIds {
  const tokenizer = extractor.tokenizer as unknown as { bos_token_id?: number; eos_token_id?: number; cls_token_id?: number; sep_token_id?: number };
  const bos = tokenizer.bos_token_id ?? tokenizer.cls_token_id;
  const eos = tokenizer.eos_token_id ?? tokenizer.sep_token_id;
  if (bos === undefined || eos === undefined) throw new Error('the tokenizer names no <s>/</s> (bos/eos or cls/sep) token');
  return { bos, eos };
}

export function createWindowedEncoder(extractor: FeatureExtractionPipeline, maxLength = 512): WindowedEncoder {
  const tokenizer = extractor.tokenizer;
  // transformers.js's Unigram merges a run of unknown characters into one <unk>; SentencePiece
  // and the reference engine give one <unk> per character. The flag is set in its constructor,
  // so it is turned off here, where the tokenizer is ours.
  const model = (tokenizer as unknown as TokenizerInternals)._tokenizer?.model;
  if (model && 'fuse_unk' in model) model.fuse_unk = false;
  const special = specialIds(extractor);
  const pad = (tokenizer as unknown as { pad_token_id?: number }).pad_token_id ?? special.eos;
  const contentIds = (text: string): number[] => {
    const data = tokenizer(text, { add_special_tokens: false }).input_ids.data as BigInt64Array | number[];
    return Array.from(data, Number);
  };

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
      const output = (await extractor.model({
        input_ids: new Tensor('int64', ids, [windows.length, length]),
        attention_mask: new Tensor('int64', mask, [windows.length, length]),
      })) as { last_hidden_state?: Tensor; token_embeddings?: Tensor };
      const hidden = output.last_hidden_state ?? output.token_embeddings;
      if (!hidden) throw new Error('the model returned no last_hidden_state');
      const dimensions = hidden.dims[2];
      return poolWindows(windows, texts.length, hidden.data as Float32Array, length, dimensions);
    },
  };
}
