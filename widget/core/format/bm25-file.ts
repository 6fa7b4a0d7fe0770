/**
 * `bm25.bin`, the BM25 index of format 2, laid out so that a reader uses the bytes in place:
 * nothing per term or per chunk is built at load, only typed-array views over the file.
 *
 * In the container of sections.ts (magic "HCB2"), the sections:
 *     fieldLengths.<field>  Uint32Array(chunks)   tokens of the field in each chunk
 *     chunkDomain           Uint16Array(chunks)   index into header.domains (0xffff: none)
 *     blocks                Uint32Array(blocks × (1 + fields))
 *                            the dictionary offset of each block's first term, then for each
 *                            field the offset of that term's postings in postings.<field>
 *     dictionary            front-coded terms, sorted by their UTF-8 bytes, in blocks of
 *                            `blockSize`: varint shared-prefix length, varint suffix length,
 *                            suffix bytes, then per field varint postings byte length (0: the
 *                            term does not occur in that field); a block's first term is whole
 *     postings.<field>      per term: varint df, varint max tf, varint min field length, then
 *                            df × (varint chunk-id gap, varint tf), chunk ids ascending
 *
 * The max tf and min field length bound what a term can add to any chunk's score under any
 * BM25 parameters (the score grows with tf and shrinks with field length), which is what lets
 * search skip postings that cannot reach the top k.
 */
import { createError } from '../errors.ts';
import { readSections, typedBytes, writeSections, type SectionFile } from './sections.ts';
import { ByteWriter, readVarint } from './varint.ts';

export const BM25_FILE_MAGIC = 'HCB2';
export const BM25_FIELDS = ['body', 'context'] as const;
export type Bm25Field = (typeof BM25_FIELDS)[number];
/** Terms per dictionary block: a lookup binary-searches the blocks, then scans at most this many. */
const BLOCK_SIZE = 16;
const NO_DOMAIN = 0xffff;

/** What the builder compiles and the encoder writes. */
export interface Bm25Contents {
  chunks: number;
  /** Per field, Orama's running average of the field lengths (kept bit for bit: scores depend on it). */
  avgFieldLength: Record<Bm25Field, number>;
  fieldLengths: Record<Bm25Field, Uint32Array>;
  domains: string[];
  /** Index into `domains` of each chunk's domain. */
  chunkDomain: Uint16Array;
  /** Term → per field the postings as flat [chunk, tf, chunk, tf, …] with chunks ascending. */
  postings: Map<string, Partial<Record<Bm25Field, number[]>>>;
}

interface Bm25Header {
  chunks: number;
  fields: Bm25Field[];
  avgFieldLength: number[];
  terms: number;
  blockSize: number;
  domains: string[];
}

/** One term's postings in one field: where they are and what bounds them. */
export interface PostingsRef {
  df: number;
  maxTf: number;
  minLength: number;
  /** Byte range of the (gap, tf) pairs in the field's postings section. */
  start: number;
  end: number;
}

const encoder = new TextEncoder();

/** Byte order of UTF-8, which is code-point order: the order the dictionary is sorted in. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

export function encodeBm25File(contents: Bm25Contents): Uint8Array {
  const fields = [...BM25_FIELDS];
  const terms = [...contents.postings.keys()].map((term) => ({ term, bytes: encoder.encode(term) }));
  terms.sort((a, b) => compareBytes(a.bytes, b.bytes));

  const postings = fields.map(() => new ByteWriter());
  const dictionary = new ByteWriter();
  const blocks: number[] = [];
  let previous = new Uint8Array(0);
  terms.forEach(({ term, bytes }, i) => {
    const entry = contents.postings.get(term)!;
    const startsBlock = i % BLOCK_SIZE === 0;
    if (startsBlock) blocks.push(dictionary.length, ...postings.map((p) => p.length));
    let shared = 0;
    if (!startsBlock) while (shared < previous.length && shared < bytes.length && previous[shared] === bytes[shared]) shared++;
    dictionary.varint(shared);
    dictionary.varint(bytes.length - shared);
    dictionary.raw(bytes.subarray(shared));
    fields.forEach((field, f) => {
      const flat = entry[field];
      const out = postings[f];
      const before = out.length;
      if (flat?.length) {
        let maxTf = 0;
        let minLength = Infinity;
        for (let j = 0; j < flat.length; j += 2) {
          maxTf = Math.max(maxTf, flat[j + 1]);
          minLength = Math.min(minLength, contents.fieldLengths[field][flat[j]]);
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

  const sections: [string, Uint8Array][] = [
    ...fields.map((field): [string, Uint8Array] => [`fieldLengths.${field}`, typedBytes(contents.fieldLengths[field])]),
    ['chunkDomain', typedBytes(contents.chunkDomain)],
    ['blocks', typedBytes(Uint32Array.from(blocks))],
    ['dictionary', dictionary.finish()],
    ...fields.map((field, f): [string, Uint8Array] => [`postings.${field}`, postings[f].finish()]),
  ];
  const header: Bm25Header = {
    chunks: contents.chunks,
    fields,
    avgFieldLength: fields.map((f) => contents.avgFieldLength[f]),
    terms: terms.length,
    blockSize: BLOCK_SIZE,
    domains: contents.domains,
  };
  return writeSections(BM25_FILE_MAGIC, header, sections);
}

/** A decoded bm25.bin: views over the file's bytes, and the dictionary lookup. */
export class Bm25File {
  readonly chunks: number;
  readonly fields: readonly Bm25Field[];
  readonly avgFieldLength: readonly number[];
  readonly fieldLengths: readonly Uint32Array[];
  readonly domains: readonly string[];
  readonly chunkDomain: Uint16Array;
  readonly terms: number;
  readonly postings: readonly Uint8Array[];
  private readonly blocks: Uint32Array;
  private readonly dictionary: Uint8Array;
  private readonly blockSize: number;
  private scratch = new Uint8Array(64);
  private readonly cursor = { pos: 0 };

  private constructor(file: SectionFile<Bm25Header>) {
    const { header } = file;
    this.chunks = header.chunks;
    this.fields = header.fields;
    this.avgFieldLength = header.avgFieldLength;
    this.domains = header.domains;
    this.terms = header.terms;
    this.blockSize = header.blockSize;
    this.fieldLengths = header.fields.map((f) => file.array(`fieldLengths.${f}`, Uint32Array, header.chunks));
    this.chunkDomain = file.array('chunkDomain', Uint16Array, header.chunks);
    const blockCount = Math.ceil(header.terms / header.blockSize);
    this.blocks = file.array('blocks', Uint32Array, blockCount * (1 + header.fields.length));
    this.dictionary = file.bytes('dictionary');
    this.postings = header.fields.map((f) => file.bytes(`postings.${f}`));
  }

  /**
   * Decodes the file's header and checks every section lies inside it; `source` names it in
   * errors. `walked`: these bytes passed `verify` before (read-index.ts, `bm25Walked`), so it is
   * not repeated.
   */
  static decode(bytes: Uint8Array, source = 'bm25.bin', options: { walked?: boolean } = {}): Bm25File {
    const file = readSections<Bm25Header>(bytes, BM25_FILE_MAGIC, source);
    const { header } = file;
    const fail = (reason: string) => createError('INDEX_CORRUPT', source, reason);
    if (!Number.isInteger(header.chunks) || !Array.isArray(header.fields) || header.fields.join() !== BM25_FIELDS.join()) throw fail('unexpected fields');
    if (!Number.isInteger(header.terms) || !Number.isInteger(header.blockSize) || header.blockSize < 1) throw fail('malformed header');
    if (!Array.isArray(header.domains) || !Array.isArray(header.avgFieldLength)) throw fail('malformed header');
    if (header.chunks < 0 || header.terms < 0 || header.blockSize > 1 << 16 || !header.domains.every((d) => typeof d === 'string')) throw fail('malformed header');
    if (header.avgFieldLength.length !== header.fields.length || !header.avgFieldLength.every((a) => typeof a === 'number' && Number.isFinite(a) && a >= 0)) throw fail('malformed field lengths');
    const decoded = new Bm25File(file);
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
   * file's structure does not vouch for (docs/reliability.md): blocks start where their terms do, terms
   * ascend, each postings list lies whole in its section and holds ascending chunk ids below
   * `chunks` with term frequencies within its bound, and nothing is left over. Linear in the file.
   */
  private verify(): void {
    const fail = (reason: string) => createError('INDEX_CORRUPT', 'bm25.bin', reason);
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

  /** The term's index in the dictionary and its postings per field, or null when no chunk has it. */
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
    if (start + length > bytes.length) throw createError('INDEX_CORRUPT', 'bm25.bin', 'postings lie outside their section');
    const cursor = { pos: start };
    const df = readVarint(bytes, cursor);
    const maxTf = readVarint(bytes, cursor);
    const minLength = readVarint(bytes, cursor);
    return { df, maxTf, minLength, start: cursor.pos, end: start + length };
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
    if (cursor.pos !== ref.end || id >= this.chunks) throw createError('INDEX_CORRUPT', 'bm25.bin', 'postings do not match the dictionary');
    return ref.df;
  }

  /** The domain of chunk `i`, or null. */
  domainOf(i: number): string | null {
    const d = this.chunkDomain[i];
    return d === NO_DOMAIN ? null : (this.domains[d] ?? null);
  }

  domainIndex(domain: string): number {
    return this.domains.indexOf(domain);
  }
}

export { NO_DOMAIN };
