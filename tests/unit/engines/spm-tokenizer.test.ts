/**
 * The SentencePiece tokenizer the reader counts its budget with (spm-tokenizer.ts), on a small
 * vocabulary written here: llama.cpp's rules — the best-scored pair merges first, ties to the left,
 * special pieces cut out first (control tokens only when parsed), bytes for what the vocabulary
 * lacks. Gemma's real vocabulary is checked against the training tokenizer in reader-prompt.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { GgufValue } from '../../../widget/core/format/gguf-file.ts';
import { SpmTokenizer } from '../../../widget/engines/gguf/spm-tokenizer.ts';

// id: text, score, type (1 normal, 3 control, 4 user-defined, 6 byte)
const VOCAB: [string, number, number][] = [
  ['<pad>', 0, 3],
  ['<eos>', 0, 3],
  ['<bos>', 0, 3],
  ['<start_of_turn>', 0, 3],
  ['\n', 0, 4],
  ['a', -1, 1],
  ['b', -1, 1],
  ['c', -1, 1],
  ['▁', -1, 1],
  ['ab', -5, 1],
  ['bc', -2, 1],
  ['abc', -3, 1],
  ['▁a', -4, 1],
  ['x', -1, 1],
  ['y', -1, 1],
  ['z', -1, 1],
  ['xy', -5, 1],
  ['yz', -2, 1],
  ['p', -1, 1],
  ['pp', -2, 1],
  ...Array.from({ length: 256 }, (_, i): [string, number, number] => [`<0x${i.toString(16).toUpperCase().padStart(2, '0')}>`, 0, 6]),
];
const ID = (text: string) => VOCAB.findIndex(([t]) => t === text);

function tokenizer(extra: Record<string, GgufValue> = {}): SpmTokenizer {
  const values = new Map<string, GgufValue>([
    ['tokenizer.ggml.model', 'llama'],
    ['tokenizer.ggml.tokens', VOCAB.map(([t]) => t)],
    ['tokenizer.ggml.scores', VOCAB.map(([, s]) => s)],
    ['tokenizer.ggml.token_type', VOCAB.map(([, , k]) => k)],
    ['tokenizer.ggml.bos_token_id', 2],
    ['tokenizer.ggml.add_space_prefix', false],
    ...Object.entries(extra),
  ]);
  return SpmTokenizer.fromGguf({ values });
}

describe('SentencePiece tokenizer (llama.cpp rules)', () => {
  it('merges the best-scored pair first, ties to the left', () => {
    // "yz" (-2) beats "xy" (-5), and no "xyz": x + yz, where left-to-right merging gives xy + z.
    expect(tokenizer().tokenize('xyz')).toEqual([ID('x'), ID('yz')]);
    // "bc" first, then "abc" (-3) joins a and bc.
    expect(tokenizer().tokenize('abc')).toEqual([ID('abc')]);
    // Two equal "pp" pairs: the leftmost merges, the last p stays alone.
    expect(tokenizer().tokenize('ppp')).toEqual([ID('pp'), ID('p')]);
  });

  it('turns spaces into ▁ and adds the space prefix only where the file says so', () => {
    expect(tokenizer().tokenize('a a')).toEqual([ID('a'), ID('▁a')]);
    expect(tokenizer({ 'tokenizer.ggml.add_space_prefix': true }).tokenize('a')).toEqual([ID('▁a')]);
  });

  it('cuts user-defined pieces out always and control tokens only when parsed', () => {
    const t = tokenizer();
    expect(t.tokenize('a\nb')).toEqual([ID('a'), ID('\n'), ID('b')]);
    expect(t.tokenize('<start_of_turn>a', { parseSpecial: true })).toEqual([ID('<start_of_turn>'), ID('a')]);
    // Unparsed, the marker is text: its characters, as bytes where the vocabulary lacks them.
    expect(t.tokenize('<start_of_turn>a')).not.toContain(ID('<start_of_turn>'));
  });

  it('falls back to UTF-8 bytes for characters outside the vocabulary', () => {
    expect(tokenizer().tokenize('אa')).toEqual([ID('<0xD7>'), ID('<0x90>'), ID('a')]);
    expect(tokenizer().count('')).toBe(0);
  });

  it('refuses a vocabulary that is not SentencePiece', () => {
    const values = new Map<string, GgufValue>([['tokenizer.ggml.model', 'gpt2']]);
    expect(() => SpmTokenizer.fromGguf({ values })).toThrow(/not a SentencePiece vocabulary/);
  });
});
