/**
 * A GGUF model's SentencePiece tokenizer (`tokenizer.ggml.model = "llama"`: Gemma's), as llama.cpp
 * runs it, read from the file's own vocabulary. The reader's prompt has a token budget (160, the
 * one it was trained with: reader-prompt.ts) and wllama exposes no tokenizer, so the widget counts
 * here what llama.cpp will see. Hand-written because it is small and must match llama.cpp exactly
 * (llama-vocab.cpp, llm_tokenizer_spm and tokenizer_st_partition); checked against the Python
 * tokenizer of the training on tests/fixtures/reader/prompt-cases.json.
 *
 * - Special pieces first: control tokens (`<start_of_turn>`; only with `parseSpecial`, as the
 *   server's completion parses them) and user-defined ones (Gemma's "\n", runs of spaces and tabs,
 *   always) are cut out of the text, longest first, as whole tokens.
 * - Each remaining fragment: spaces become "▁" (no space prefix where the file says so), then
 *   characters merge pairwise, the pair whose joined piece has the highest score first (ties: the
 *   leftmost), while the joined piece is in the vocabulary; pieces that are not tokens fall back to
 *   their UTF-8 bytes (`<0xE2>`).
 */
import type { GgufMetadata } from '../../core/format/gguf-file.ts';

/** llama.cpp's token types (llama.h: LLAMA_TOKEN_TYPE_*). */
const TOKEN_TYPE = { normal: 1, unknown: 2, control: 3, userDefined: 4, unused: 5, byte: 6 } as const;

interface Symbol {
  text: string;
  prev: number;
  next: number;
}

interface Bigram {
  left: number;
  right: number;
  score: number;
  /** The joined text's length when queued: a symbol that has grown since makes the entry stale. */
  size: number;
}

export class SpmTokenizer {
  private readonly ids = new Map<string, number>();
  /** Control and user-defined tokens (and unknown), longest first: cut out before the merges. */
  private readonly special: { text: string; id: number; control: boolean }[] = [];
  private readonly byteIds = new Map<number, number>();

  private constructor(
    private readonly tokens: readonly string[],
    private readonly scores: readonly number[],
    types: readonly number[],
    readonly addSpacePrefix: boolean,
    readonly addBos: boolean,
    readonly bosId: number,
  ) {
    tokens.forEach((text, id) => {
      if (!this.ids.has(text)) this.ids.set(text, id);
      const type = types[id];
      if (type === TOKEN_TYPE.control || type === TOKEN_TYPE.userDefined || type === TOKEN_TYPE.unknown) {
        if (text) this.special.push({ text, id, control: type !== TOKEN_TYPE.userDefined });
      }
      const byte = type === TOKEN_TYPE.byte ? /^<0x([0-9A-Fa-f]{2})>$/.exec(text) : null;
      if (byte) this.byteIds.set(Number.parseInt(byte[1], 16), id);
    });
    this.special.sort((a, b) => b.text.length - a.text.length);
  }

  /** The tokenizer of a GGUF's metadata; throws where it is not a SentencePiece vocabulary. */
  static fromGguf(meta: Pick<GgufMetadata, 'values'>): SpmTokenizer {
    const v = meta.values;
    const model = v.get('tokenizer.ggml.model');
    const tokens = v.get('tokenizer.ggml.tokens');
    const scores = v.get('tokenizer.ggml.scores');
    const types = v.get('tokenizer.ggml.token_type');
    if (model !== 'llama' || !Array.isArray(tokens) || !Array.isArray(scores) || !Array.isArray(types) || tokens.length !== scores.length) {
      throw new Error(`not a SentencePiece vocabulary (tokenizer.ggml.model = ${String(model)})`);
    }
    const flag = (key: string, fallback: boolean) => {
      const value = v.get(key);
      return typeof value === 'boolean' ? value : fallback;
    };
    const bos = v.get('tokenizer.ggml.bos_token_id');
    return new SpmTokenizer(
      tokens as string[],
      scores as number[],
      types as number[],
      flag('tokenizer.ggml.add_space_prefix', true),
      flag('tokenizer.ggml.add_bos_token', true),
      typeof bos === 'number' ? bos : -1,
    );
  }

  tokenId(text: string): number | undefined {
    return this.ids.get(text);
  }

  tokenText(id: number): string | undefined {
    return this.tokens[id];
  }

  /** The ids llama.cpp gives `text` (no BOS: the caller adds it). */
  tokenize(text: string, options: { parseSpecial?: boolean } = {}): number[] {
    const out: number[] = [];
    let first = true;
    for (const fragment of this.partition(text, options.parseSpecial ?? false)) {
      if (typeof fragment === 'number') {
        out.push(fragment);
        continue;
      }
      // llama.cpp adds the space prefix to the first raw fragment only.
      const prefixed = this.addSpacePrefix && first ? ` ${fragment}` : fragment;
      first = false;
      this.merge(prefixed.replaceAll(' ', '\u2581'), out);
    }
    return out;
  }

  count(text: string, options: { parseSpecial?: boolean } = {}): number {
    return this.tokenize(text, options).length;
  }

  /** The text with special tokens cut out as ids, in order (tokenizer_st_partition). */
  private partition(text: string, parseSpecial: boolean): (string | number)[] {
    let fragments: (string | number)[] = text ? [text] : [];
    for (const token of this.special) {
      if (token.control && !parseSpecial) continue;
      if (!fragments.some((f) => typeof f === 'string' && f.includes(token.text))) continue;
      fragments = fragments.flatMap((f) => {
        if (typeof f !== 'string') return [f];
        const parts = f.split(token.text);
        const out: (string | number)[] = [];
        parts.forEach((part, i) => {
          if (i > 0) out.push(token.id);
          if (part) out.push(part);
        });
        return out;
      });
    }
    return fragments;
  }

  private merge(text: string, out: number[]): void {
    const symbols: Symbol[] = [];
    const chars = Array.from(text);
    chars.forEach((ch, i) => symbols.push({ text: ch, prev: i - 1, next: i + 1 < chars.length ? i + 1 : -1 }));
    const queue = new BigramQueue();
    const tryAdd = (left: number, right: number) => {
      if (left === -1 || right === -1) return;
      const joined = symbols[left].text + symbols[right].text;
      const id = this.ids.get(joined);
      if (id === undefined) return;
      queue.push({ left, right, score: this.scores[id], size: joined.length });
    };
    for (let i = 1; i < symbols.length; i++) tryAdd(i - 1, i);
    for (let bigram = queue.pop(); bigram; bigram = queue.pop()) {
      const left = symbols[bigram.left];
      const right = symbols[bigram.right];
      if (!left.text || !right.text || left.text.length + right.text.length !== bigram.size) continue;
      left.text += right.text;
      right.text = '';
      left.next = right.next;
      if (right.next >= 0) symbols[right.next].prev = bigram.left;
      tryAdd(left.prev, bigram.left);
      tryAdd(bigram.left, left.next);
    }
    // A merged piece is a token by construction (a pair is queued only when its join is one), so
    // only single characters can be missing: they fall back to bytes. (llama.cpp's rev_merge
    // lookup for such pieces never finds one: it records joins, and a join is always a token.)
    const emit = (piece: string) => {
      const id = this.ids.get(piece);
      if (id !== undefined) out.push(id);
      else for (const byte of new TextEncoder().encode(piece)) out.push(this.byteIds.get(byte) ?? 0);
    };
    for (let i = 0; i !== -1 && i < symbols.length; i = symbols[i].next) emit(symbols[i].text);
  }
}

/** A max-heap of bigrams: the highest score first, then the leftmost (llama.cpp's comparator). */
class BigramQueue {
  private readonly heap: Bigram[] = [];

  push(b: Bigram): void {
    const h = this.heap;
    h.push(b);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(h[i], h[parent])) break;
      [h[i], h[parent]] = [h[parent], h[i]];
      i = parent;
    }
  }

  pop(): Bigram | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let best = i;
        if (l < h.length && before(h[l], h[best])) best = l;
        if (r < h.length && before(h[r], h[best])) best = r;
        if (best === i) break;
        [h[i], h[best]] = [h[best], h[i]];
        i = best;
      }
    }
    return top;
  }
}

function before(a: Bigram, b: Bigram): boolean {
  return a.score > b.score || (a.score === b.score && a.left < b.left);
}
