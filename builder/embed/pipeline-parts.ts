/**
 * A transformers.js feature-extraction pipeline as the shared windowed encoder's parts
 * (widget/core/embedding/windowed-encoder.ts): how the builder embeds passages in Node.
 */
import { Tensor, type FeatureExtractionPipeline } from '@huggingface/transformers';
import type { SpecialIds } from '../../widget/core/embedding/windows.ts';
import { createWindowedEncoder, type EncoderParts, type WindowedEncoder } from '../../widget/core/embedding/windowed-encoder.ts';

interface TokenizerInternals {
  _tokenizer?: { model?: { fuse_unk?: boolean } };
  bos_token_id?: number;
  eos_token_id?: number;
  cls_token_id?: number;
  sep_token_id?: number;
  pad_token_id?: number;
}

export function pipelineParts(extractor: FeatureExtractionPipeline): EncoderParts {
  const tokenizer = extractor.tokenizer;
  const internals = tokenizer as unknown as TokenizerInternals;
  // transformers.js's Unigram merges a run of unknown characters into one <unk>; SentencePiece
  // and the reference engine give one <unk> per character. The flag is set in its constructor,
  // so it is turned off here, where the tokenizer is ours.
  const model = internals._tokenizer?.model;
  if (model && 'fuse_unk' in model) model.fuse_unk = false;
  const bos = internals.bos_token_id ?? internals.cls_token_id;
  const eos = internals.eos_token_id ?? internals.sep_token_id;
  if (bos === undefined || eos === undefined) throw new Error('the tokenizer names no <s>/</s> (bos/eos or cls/sep) token');
  const special: SpecialIds = { bos, eos };
  return {
    special,
    pad: internals.pad_token_id ?? eos,
    contentIds(text) {
      const data = tokenizer(text, { add_special_tokens: false }).input_ids.data as BigInt64Array | number[];
      return Array.from(data, Number);
    },
    async run(ids, mask, batch, length) {
      const output = (await extractor.model({
        input_ids: new Tensor('int64', ids, [batch, length]),
        attention_mask: new Tensor('int64', mask, [batch, length]),
      })) as { last_hidden_state?: Tensor; token_embeddings?: Tensor };
      const hidden = output.last_hidden_state ?? output.token_embeddings;
      if (!hidden) throw new Error('the model returned no last_hidden_state');
      return { data: hidden.data as Float32Array, dimensions: hidden.dims[2] };
    },
  };
}

/** The windowed encoder over a transformers.js pipeline. */
export function createPipelineEncoder(extractor: FeatureExtractionPipeline, maxLength = 512): WindowedEncoder {
  return createWindowedEncoder(pipelineParts(extractor), maxLength);
}
