/**
 * The E5 tokenizer from a model folder's tokenizer.json and tokenizer_config.json, on
 * `@huggingface/tokenizers`: the library transformers.js itself tokenizes with (its tokenizer
 * is `new Tokenizer(json, config).encode(…)`), so the ids are the builder's, without loading
 * transformers.js and its onnxruntime build into the page.
 */
import { Tokenizer } from '@huggingface/tokenizers';
import type { EncoderParts } from '../core/embedding/windowed-encoder.ts';
import { withFlatPieceSearch } from './flat-piece-search.ts';

export type QueryTokenizer = Pick<EncoderParts, 'contentIds' | 'special' | 'pad'>;

type TokenName = string | { content?: string } | undefined;

const nameOf = (token: TokenName) => (typeof token === 'string' ? token : token?.content);

export function createQueryTokenizer(tokenizerJson: unknown, tokenizerConfig: unknown): QueryTokenizer {
  if (!tokenizerJson || typeof tokenizerJson !== 'object') throw new Error('tokenizer.json is not a JSON object');
  const config = (tokenizerConfig && typeof tokenizerConfig === 'object' ? tokenizerConfig : {}) as Record<string, TokenName>;
  // Without the library's trie of 121k pieces: flat-piece-search.ts says why.
  const tokenizer = withFlatPieceSearch(() => new Tokenizer(tokenizerJson, config));
  // The library's Unigram merges a run of unknown characters into one <unk>; SentencePiece and
  // the reference engine give one <unk> per character (builder/embed/pipeline-parts.ts does the same).
  const model = tokenizer.model as { fuse_unk?: boolean } | null;
  if (model && 'fuse_unk' in model) model.fuse_unk = false;
  const id = (...names: TokenName[]) => {
    for (const name of names) {
      const text = nameOf(name);
      const found = text === undefined ? undefined : tokenizer.token_to_id(text);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const bos = id(config.bos_token, config.cls_token);
  const eos = id(config.eos_token, config.sep_token);
  if (bos === undefined || eos === undefined) throw new Error('tokenizer_config.json names no <s>/</s> (bos/eos or cls/sep) token the vocabulary has');
  return {
    special: { bos, eos },
    pad: id(config.pad_token) ?? eos,
    contentIds: (text) => tokenizer.encode(text, { add_special_tokens: false }).ids,
  };
}
