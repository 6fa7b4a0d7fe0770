/**
 * Near-duplicate detection by MinHash over word shingles, with LSH banding to find candidate
 * pairs and an exact Jaccard check to confirm them. Written here rather than taken from a
 * package: it is ~80 lines, and it must shingle with the project's own normalisation.
 */
import { normalizeText } from '../../widget/core/tokenizer/index.ts';
import { fmix32, fnv1a } from '../../widget/core/chunk/hash.ts';
import { finishNow, textPieces, type Steps } from '../../widget/core/steps.ts';

const SHINGLE = 5;
const HASHES = 64;
const BANDS = 16;
const ROWS = HASHES / BANDS;

/** A seeded member of a cheap family of independent hash functions. */
const mix = (x: number, seed: number): number => fmix32(x ^ seed);

const SEEDS = Array.from({ length: HASHES }, (_, i) => mix(i + 1, 0x9e3779b9));

/** Hashes of the text's overlapping 5-word shingles (the whole text when shorter). */
export function shingles(text: string): Set<number> {
  return finishNow(shinglesSteps(text));
}

const NOT_WORD = /[^\p{L}\p{N}]+/u;

/**
 * `shingles` as steps, one per piece of a long text (cut between words; the last words of a
 * piece carry over to start the next one's shingles, so the set is the whole text's).
 */
export function* shinglesSteps(text: string): Steps<Set<number>> {
  const out = new Set<number>();
  let carry: string[] = [];
  let total = 0;
  for (const piece of textPieces(text)) {
    yield;
    const fresh = normalizeText(piece).split(NOT_WORD).filter(Boolean);
    total += fresh.length;
    const words = carry.length ? carry.concat(fresh) : fresh;
    for (let i = 0; i + SHINGLE <= words.length; i++) out.add(fnv1a(words.slice(i, i + SHINGLE).join(' ')));
    carry = words.slice(Math.max(0, words.length - (SHINGLE - 1)));
  }
  if (total > 0 && total < SHINGLE) out.add(fnv1a(carry.join(' ')));
  return out;
}

export function jaccard(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const x of small) if (large.has(x)) shared++;
  return shared / (a.size + b.size - shared);
}

function* signature(set: ReadonlySet<number>): Steps<Uint32Array> {
  const sig = new Uint32Array(HASHES).fill(0xffffffff);
  let n = 0;
  for (const x of set) {
    if ((++n & 4095) === 0) yield;
    for (let i = 0; i < HASHES; i++) {
      const h = mix(x, SEEDS[i]);
      if (h < sig[i]) sig[i] = h;
    }
  }
  return sig;
}

/** Pairs [i, j] (i < j) whose signatures agree on at least one whole band. */
export function candidatePairs(sets: readonly ReadonlySet<number>[], minShingles: number): [number, number][] {
  return finishNow(candidatePairsSteps(sets, minShingles));
}

/** `candidatePairs` as steps, one per set and per bucket (widget/core/steps.ts). */
export function* candidatePairsSteps(sets: readonly ReadonlySet<number>[], minShingles: number): Steps<[number, number][]> {
  const buckets = new Map<string, number[]>();
  for (let i = 0; i < sets.length; i++) {
    const set = sets[i];
    yield;
    if (set.size < minShingles) continue;
    const sig = yield* signature(set);
    for (let b = 0; b < BANDS; b++) {
      const key = `${b}:${Array.from(sig.subarray(b * ROWS, (b + 1) * ROWS)).join(',')}`;
      const list = buckets.get(key);
      if (list) list.push(i);
      else buckets.set(key, [i]);
    }
  }
  const pairs = new Set<string>();
  const out: [number, number][] = [];
  for (const members of buckets.values()) {
    yield;
    for (let x = 0; x < members.length; x++) {
      for (let y = x + 1; y < members.length; y++) {
        const key = `${members[x]},${members[y]}`;
        if (pairs.has(key)) continue;
        pairs.add(key);
        out.push([members[x], members[y]]);
      }
    }
  }
  return out;
}
