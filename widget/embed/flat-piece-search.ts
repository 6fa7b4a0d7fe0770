/**
 * A Unigram tokenizer built without its character trie: `@huggingface/tokenizers` builds a trie
 * of `Map`s over every piece when a Unigram model is constructed, and for E5's 121k pieces that
 * was most of the tokenizer's start (Chromium, 2 cores: 300–450 ms of the query model's warm
 * start; Node: 660–900 ms against 55–85 ms without it). The trie is only ever asked one thing,
 * `common_prefix_search(chars, start)`: every piece that is a prefix of `chars` from `start`,
 * shortest first. A set of the pieces answers that with one lookup per length up to the longest
 * piece (16 characters for E5), so a question costs a few hundred lookups, nothing measurable.
 *
 * The library's `CharTrie` is not exported: its prototype is reached through a one-piece model's
 * trie, and its `extend` is replaced only while `build` runs (synchronously), so nothing else that
 * uses the library sees a change; the model built gets its own search. Same pieces, same order:
 * the E5 parity test (tests/unit/models/e5-parity.test.ts) holds the token ids to the reference.
 * Where a later version of the library is shaped otherwise, `build` runs unchanged.
 */
import { Unigram } from '@huggingface/tokenizers';

interface TrieShape {
  extend(pieces: Iterable<string>): void;
  common_prefix_search(chars: string[], start?: number): Generator<string>;
}

function triePrototype(): TrieShape | null {
  try {
    const trie = (new Unigram({ type: 'Unigram', vocab: [['a', 0]], unk_id: 0 } as ConstructorParameters<typeof Unigram>[0], '</s>') as unknown as { trie?: unknown }).trie;
    const proto = trie && typeof trie === 'object' ? (Object.getPrototypeOf(trie) as Partial<TrieShape> | null) : null;
    return proto && typeof proto.extend === 'function' && typeof proto.common_prefix_search === 'function' ? (proto as TrieShape) : null;
  } catch {
    return null;
  }
}

let prototype: TrieShape | null | undefined;

/** `extend` for one trie: keeps the pieces in a set and gives this trie a search over it. */
function flatExtend(this: TrieShape, pieces: Iterable<string>): void {
  const set = new Set<string>();
  // UTF-16 length bounds the characters (code points) a piece has, which is what the search counts.
  let longest = 0;
  for (const piece of pieces) {
    set.add(piece);
    if (piece.length > longest) longest = piece.length;
  }
  this.common_prefix_search = function* (chars: string[], start = 0): Generator<string> {
    const end = Math.min(chars.length, start + longest);
    let prefix = '';
    for (let i = start; i < end; i++) {
      prefix += chars[i];
      if (set.has(prefix)) yield prefix;
    }
  };
}

/** Runs `build` (which constructs the tokenizer) with every trie it makes flat instead. */
export function withFlatPieceSearch<T>(build: () => T): T {
  prototype ??= triePrototype();
  if (!prototype) return build();
  const { extend } = prototype;
  prototype.extend = flatExtend;
  try {
    return build();
  } finally {
    prototype.extend = extend;
  }
}
