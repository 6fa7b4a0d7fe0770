/**
 * `terms-<i>.bin`, one term fragment of format 3's BM25 index: the dictionary and postings of the
 * terms whose hash falls in fragment i of n (`termFragment`). A build of a small site has one
 * fragment; a large one many, so that a question reads only the fragments of its own words
 * (Pagefind's split of a search index by term). The collection's statistics, which every score
 * needs, are in the base file (bm25-file.ts), so a fragment's postings score exactly as the
 * whole index's would.
 *
 * In the container of sections.ts (magic "HCT3"), header {chunks, fields, terms, blockSize,
 * fragment, fragments}, and the sections:
 *     blocks            Uint32Array(blocks × (1 + fields))
 *                        the dictionary offset of each block's first term, then for each field
 *                        the offset of that term's postings in postings.<field>
 *     dictionary        front-coded terms, sorted by their UTF-8 bytes, in blocks of
 *                        `blockSize`: varint shared-prefix length, varint suffix length, suffix
 *                        bytes, then per field varint postings byte length (0: the term does
 *                        not occur in that field); a block's first term is whole
 *     postings.<field>  per term: varint df, varint max tf, varint min field length, then
 *                        df × (varint chunk-id gap, varint tf), chunk ids ascending
 *
 * The max tf and min field length bound what a term can add to any chunk's score under any
 * BM25 parameters (the score grows with tf and shrinks with field length), which is what lets
 * search skip postings that cannot reach the top k.
 */
import { createError } from '../errors.ts';
import { readSections, typedBytes, writeSections, type SectionFile } from './sections.ts';
import { ByteWriter, readVarint } from './varint.ts';

export const BM25_TERMS_MAGIC = 'HCT3';
export const BM25_FIELDS = ['body', 'context'] as const;
export type Bm25Field = (typeof BM25_FIELDS)[number];
/** Terms per dictionary block: a lookup binary-searches the blocks, then scans at most this many. */
const BLOCK_SIZE = 16;

/** One term's postings per field, flat [chunk, tf, chunk, tf, …] with chunks ascending. */
export type TermPostings = Partial<Record<Bm25Field, number[]>>;

/** One term's postings in one field: where they are and what bounds them. */
export interface PostingsRef {
  df: number;
  maxTf: number;
  minLength: number;
  /** The term fragment that holds them. */
  fragment: number;
  /** Byte range of the (gap, tf) pairs in the field's postings section. */
  start: number;
  end: number;
}

interface TermsHeader {
  chunks: number;
  fields: Bm25Field[];
  terms: number;
  blockSize: number;
  fragment: number;
  fragments: number;
}

const encoder = new TextEncoder();

/** Byte order of UTF-8, which is code-point order: the order the dictionary is sorted in. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/**
 * The fragment of `fragments` that holds a term: FNV-1a (32 bits) of its UTF-8 bytes, modulo the
 * count. Written down in docs/index-format.md: a reader in another language must hash alike.
 */
export function termFragment(term: string, fragments: number): number {
  if (fragments <= 1) return 0;
  return termHash(encoder.encode(term)) % fragments;
}

function termHash(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193) >>> 0;
  return hash;
}

/**
 * Writes one term fragment. `fieldLengths` (the whole collection's) give each term's smallest
 * field length, its score bound.
 */
export function encodeTermFragment(postings: ReadonlyMap<string, TermPostings>, fieldLengths: Record<Bm25Field, Uint32Array>, chunks: number, fragment: number, fragments: number): Uint8Array {
  const fields = [...BM25_FIELDS];
  const terms = [...postings.keys()].map((term) => ({ term, bytes: encoder.encode(term) }));
  terms.sort((a, b) => compareBytes(a.bytes, b.bytes));
  const sections = fields.map(() => new ByteWriter());
  const dictionary = new ByteWriter();
  const blocks: number[] = [];
  let previous = new Uint8Array(0);
  terms.forEach(({ term, bytes }, i) => {
    if (fragments > 1 && termHash(bytes) % fragments !== fragment) throw new Error(`"${term}" does not belong in term fragment ${fragment}`);
    const entry = postings.get(term)!;
    const startsBlock = i % BLOCK_SIZE === 0;
    if (startsBlock) blocks.push(dictionary.length, ...sections.map((p) => p.length));
    let shared = 0;
    if (!startsBlock) while (shared < previous.length && shared < bytes.length && previous[shared] === bytes[shared]) shared++;
    dictionary.varint(shared);
    dictionary.varint(bytes.length - shared);
    dictionary.raw(bytes.subarray(shared));
    fields.forEach((field, f) => {
      const flat = entry[field];
      const out = sections[f];
      const before = out.length;
      if (flat?.length) {
        let maxTf = 0;
        let minLength = Infinity;
        for (let j = 0; j < flat.length; j += 2) {
          maxTf = Math.max(maxTf, flat[j + 1]);
          minLength = Math.min(minLength, fieldLengths[field][flat[j]]);
        }
        out.varint(flat.length / 2);
        out.varint(maxTf);
        out.varint(minLength);
        let last = 0;
        for (let j = 0; j < flat.length; j += 2) {
          if (j > 0 && flat[j] <= last) throw new Error(`postings of "${term}" are not ascending`);
          out.varint(flat[j] - last);
          out.varint(flat[j + 1]);
          last = flat[j];
        }
      }
      dictionary.varint(out.length - before);
    });
    previous = bytes;
  });
  const header: TermsHeader = { chunks, fields, terms: terms.length, blockSize: BLOCK_SIZE, fragment, fragments };
  return writeSections(BM25_TERMS_MAGIC, header, [
    ['blocks', typedBytes(Uint32Array.from(blocks))],
    ['dictionary', dictionary.finish()],
    ...fields.map((field, f): [string, Uint8Array] => [`postings.${field}`, sections[f].finish()]),
  ]);
}

/** What a term fragment must agree with: the base file's collection and fragment count, and its own place. */
export interface TermFragmentPlace {
  chunks: number;
  fragment: number;
  fragments: number;
}

/** A decoded term fragment: views over its bytes, and the dictionary lookup. */
export class Bm25Terms {
  readonly fragment: number;
  readonly terms: number;
  readonly chunks: number;
  private readonly fields: readonly Bm25Field[];
  private readonly postings: readonly Uint8Array[];
  private readonly blocks: Uint32Array;
  private readonly dictionary: Uint8Array;
  private readonly blockSize: number;
  private readonly fragments: number;
  private readonly source: string;
  private scratch = new Uint8Array(64);
  private readonly cursor = { pos: 0 };

  private constructor(file: SectionFile<TermsHeader>, source: string) {
    const { header } = file;
    this.source = source;
    this.chunks = header.chunks;
    this.fields = header.fields;
    this.terms = header.terms;
    this.blockSize = header.blockSize;
    this.fragment = header.fragment;
    this.fragments = header.fragments;
    const blockCount = Math.ceil(header.terms / header.blockSize);
    this.blocks = file.array('blocks', Uint32Array, blockCount * (1 + header.fields.length));
    this.dictionary = file.bytes('dictionary');
    this.postings = header.fields.map((f) => file.bytes(`postings.${f}`));
  }

  /**
   * Decodes the fragment's header, checks it is the one `place` expects and that every section
   * lies inside it. `walked`: these bytes passed `verify` before (read-index.ts, `bm25Walked`), so
   * it is not repeated.
   */
  static decode(bytes: Uint8Array, place: TermFragmentPlace, source = 'terms.bin', options: { walked?: boolean } = {}): Bm25Terms {
    const file = readSections<TermsHeader>(bytes, BM25_TERMS_MAGIC, source);
    const { header } = file;
    const fail = (reason: string) => createError('INDEX_CORRUPT', source, reason);
    if (!Array.isArray(header.fields) || header.fields.join() !== BM25_FIELDS.join()) throw fail('unexpected fields');
    if (!Number.isInteger(header.terms) || !Number.isInteger(header.blockSize) || header.blockSize < 1 || header.blockSize > 1 << 16 || header.terms < 0) throw fail('malformed header');
    if (header.chunks !== place.chunks || header.fragment !== place.fragment || header.fragments !== place.fragments) {
      throw fail(`term fragment ${String(header.fragment)} of ${String(header.fragments)} over ${String(header.chunks)} chunks, expected ${place.fragment} of ${place.fragments} over ${place.chunks}`);
    }
    const decoded = new Bm25Terms(file, source);
    if (options.walked) return decoded;
    try {
      decoded.verify();
    } catch (error) {
      // A varint running off its section, from the walk below.
      if (error instanceof RangeError) throw fail(error.message);
      throw error;
    }
    return decoded;
  }

  /**
   * Walks the dictionary and every postings list once, so that a search never meets bytes the
   * file's structure does not vouch for (docs/reliability.md): blocks start where their terms
   * do, terms ascend and hash to this fragment, each postings list lies whole in its section and
   * holds ascending chunk ids below `chunks` with term frequencies within its bound, and nothing
   * is left over. Linear in the file.
   */
  private verify(): void {
    const fail = (reason: string) => createError('INDEX_CORRUPT', this.source, reason);
    const stride = 1 + this.fields.length;
    const cursor = { pos: 0 };
    const posting = { pos: 0 };
    const offsets = this.fields.map(() => 0);
    let current = new Uint8Array(64);
    let previous = new Uint8Array(64);
    let previousLength = -1;
    for (let t = 0; t < this.terms; t++) {
      const startsBlock = t % this.blockSize === 0;
      if (startsBlock) {
        const b = (t / this.blockSize) * stride;
        if (this.blocks[b] !== cursor.pos) throw fail(`dictionary block ${t / this.blockSize} starts at the wrong offset`);
        for (let f = 0; f < this.fields.length; f++) if (this.blocks[b + 1 + f] !== offsets[f]) throw fail(`dictionary block ${t / this.blockSize} points at the wrong postings`);
      }
      const shared = readVarint(this.dictionary, cursor);
      const suffix = readVarint(this.dictionary, cursor);
      if ((startsBlock && shared !== 0) || shared > Math.max(0, previousLength) || cursor.pos + suffix > this.dictionary.length) throw fail(`term ${t} is malformed`);
      const length = shared + suffix;
      if (length > current.length) {
        const grown = new Uint8Array(length * 2);
        grown.set(current);
        current = grown;
      }
      if (shared > 0) current.set(previous.subarray(0, shared));
      current.set(this.dictionary.subarray(cursor.pos, cursor.pos + suffix), shared);
      cursor.pos += suffix;
      if (previousLength >= 0 && compareBytes(previous.subarray(0, previousLength), current.subarray(0, length)) >= 0) throw fail(`term ${t} is out of order`);
      // A term in the wrong fragment would never be looked up there: its chunks would silently not match.
      if (this.fragments > 1 && termHash(current.subarray(0, length)) % this.fragments !== this.fragment) throw fail(`term ${t} belongs in another fragment`);
      for (let f = 0; f < this.fields.length; f++) {
        const bytes = readVarint(this.dictionary, cursor);
        if (bytes === 0) continue;
        const section = this.postings[f];
        const end = offsets[f] + bytes;
        if (end > section.length) throw fail(`the postings of term ${t} lie outside their section`);
        posting.pos = offsets[f];
        const df = readVarint(section, posting);
        const maxTf = readVarint(section, posting);
        readVarint(section, posting);
        if (df < 1 || df > this.chunks) throw fail(`term ${t} occurs in ${df} of ${this.chunks} chunks`);
        let id = -1;
        for (let i = 0; i < df; i++) {
          const gap = readVarint(section, posting);
          const tf = readVarint(section, posting);
          id = i === 0 ? gap : id + gap;
          if ((i > 0 && gap === 0) || id >= this.chunks || tf > maxTf || posting.pos > end) throw fail(`the postings of term ${t} are malformed`);
        }
        if (posting.pos !== end) throw fail(`the postings of term ${t} do not fill their bytes`);
        offsets[f] = end;
      }
      [previous, current] = [current, previous];
      previousLength = length;
    }
    if (cursor.pos !== this.dictionary.length) throw fail('the dictionary has bytes after its last term');
    for (let f = 0; f < this.fields.length; f++) if (offsets[f] !== this.postings[f].length) throw fail(`postings.${this.fields[f]} has bytes no term names`);
  }

  /** The term's postings per field, or null when no chunk has it. The term must hash to this fragment. */
  lookup(term: string): (PostingsRef | null)[] | null {
    const wanted = encoder.encode(term);
    const stride = 1 + this.fields.length;
    const blockCount = this.blocks.length / stride;
    // The last block whose first term is ≤ the wanted one.
    let lo = 0;
    let hi = blockCount - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      this.cursor.pos = this.blocks[mid * stride];
      readVarint(this.dictionary, this.cursor);
      const length = readVarint(this.dictionary, this.cursor);
      const head = this.dictionary.subarray(this.cursor.pos, this.cursor.pos + length);
      if (compareBytes(head, wanted) <= 0) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (found < 0) return null;
    this.cursor.pos = this.blocks[found * stride];
    const offsets = Array.from(this.blocks.subarray(found * stride + 1, found * stride + stride));
    const inBlock = Math.min(this.blockSize, this.terms - found * this.blockSize);
    let termLength = 0;
    for (let i = 0; i < inBlock; i++) {
      const shared = readVarint(this.dictionary, this.cursor);
      const suffix = readVarint(this.dictionary, this.cursor);
      termLength = shared + suffix;
      if (termLength > this.scratch.length) {
        const grown = new Uint8Array(termLength * 2);
        grown.set(this.scratch);
        this.scratch = grown;
      }
      this.scratch.set(this.dictionary.subarray(this.cursor.pos, this.cursor.pos + suffix), shared);
      this.cursor.pos += suffix;
      const lengths = this.fields.map(() => readVarint(this.dictionary, this.cursor));
      const order = compareBytes(this.scratch.subarray(0, termLength), wanted);
      if (order === 0) return lengths.map((length, f) => (length ? this.postingsRef(f, offsets[f], length) : null));
      if (order > 0) return null;
      lengths.forEach((length, f) => (offsets[f] += length));
    }
    return null;
  }

  private postingsRef(field: number, start: number, length: number): PostingsRef {
    const bytes = this.postings[field];
    if (start + length > bytes.length) throw createError('INDEX_CORRUPT', this.source, 'postings lie outside their section');
    const cursor = { pos: start };
    const df = readVarint(bytes, cursor);
    const maxTf = readVarint(bytes, cursor);
    const minLength = readVarint(bytes, cursor);
    return { df, maxTf, minLength, fragment: this.fragment, start: cursor.pos, end: start + length };
  }

  /**
   * Decodes postings into `ids` and `tfs` (each at least `ref.df` long) and returns how many. The
   * caller owns the arrays so a search reuses them instead of allocating per term.
   */
  decodePostings(field: number, ref: PostingsRef, ids: Uint32Array, tfs: Uint32Array): number {
    const bytes = this.postings[field];
    const cursor = this.cursor;
    cursor.pos = ref.start;
    let id = 0;
    for (let i = 0; i < ref.df; i++) {
      id += readVarint(bytes, cursor);
      ids[i] = id;
      tfs[i] = readVarint(bytes, cursor);
    }
    if (cursor.pos !== ref.end || id >= this.chunks) throw createError('INDEX_CORRUPT', this.source, 'postings do not match the dictionary');
    return ref.df;
  }
}
