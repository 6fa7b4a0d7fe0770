/**
 * Format 3's BM25 index: `bm25.bin`, the base every search reads (the collection's statistics),
 * and its term fragments (`terms-<i>.bin`, bm25-terms.ts), each the dictionary and postings of the
 * terms that hash to it. A reader uses the bytes in place: nothing per term or per chunk is built
 * at load, only typed-array views over the inflated bytes.
 *
 * The base, in the container of sections.ts (magic "HCB3"), header {chunks, fields,
 * avgFieldLength, domains, termFragments, chunkFragmentStarts: the number of each chunk fragment's
 * first chunk}, and the sections:
 *     fieldLengths.<field>  Uint32Array(chunks)   tokens of the field in each chunk
 *     chunkDomain           Uint16Array(chunks)   index into header.domains (0xffff: none)
 *     chunkDoc              Uint32Array(chunks)   the chunk's document (index into documents.json)
 *     chunkPage             Uint32Array(chunks)   its page
 *     chunkSection          Uint32Array(chunks)   the number of the first chunk of its document,
 *                                                 page and parent section (its section's id)
 *
 * N, the field-length averages and each chunk's length are here, not in the fragments: a score
 * read from one fragment is the score the whole index gives, whatever else is loaded. The three
 * chunk columns are what ranking reads of every candidate (its domain, page and section), so a
 * reader ranks before it has any chunk fragment and then reads only its hits'.
 */
import { createError } from '../errors.ts';
import { readSections, typedBytes, writeSections } from './sections.ts';
import { BM25_FIELDS, Bm25Terms, encodeTermFragment, termFragment, type Bm25Field, type PostingsRef, type TermPostings } from './bm25-terms.ts';

export { BM25_FIELDS, compareBytes, type Bm25Field, type PostingsRef } from './bm25-terms.ts';

export const BM25_FILE_MAGIC = 'HCB3';
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
  /** Each chunk's document, page and section (compile-bm25.ts chunkLocator). */
  locator: ChunkLocator;
  /** Term → per field the postings as flat [chunk, tf, chunk, tf, …] with chunks ascending. */
  postings: Map<string, TermPostings>;
}

/** Each chunk's document, page and section id (the first chunk of its document, page and parent section). */
export interface ChunkLocator {
  doc: Uint32Array;
  page: Uint32Array;
  section: Uint32Array;
}

interface Bm25Header {
  chunks: number;
  fields: Bm25Field[];
  avgFieldLength: number[];
  domains: string[];
  termFragments: number;
  chunkFragmentStarts: number[];
}

/** The encoded BM25 index: its base file and its term fragments, in fragment order. */
export interface Bm25Bytes {
  base: Uint8Array;
  terms: Uint8Array[];
}

/**
 * Encodes the postings as a base file and `termFragments` term fragments (1: one holding every
 * term). `chunkFragmentStarts`: where the build's chunk fragments start (chunk-store.ts), recorded
 * so that a reader finds a chunk's fragment before it has read any.
 */
export function encodeBm25Files(contents: Bm25Contents, termFragments = 1, chunkFragmentStarts: readonly number[] = [0]): Bm25Bytes {
  if (!Number.isInteger(termFragments) || termFragments < 1) throw new Error(`term fragments must be a positive integer, not ${termFragments}`);
  const fields = [...BM25_FIELDS];
  const header: Bm25Header = {
    chunks: contents.chunks,
    fields,
    avgFieldLength: fields.map((f) => contents.avgFieldLength[f]),
    domains: contents.domains,
    termFragments,
    chunkFragmentStarts: [...chunkFragmentStarts],
  };
  const base = writeSections(BM25_FILE_MAGIC, header, [
    ...fields.map((field): [string, Uint8Array] => [`fieldLengths.${field}`, typedBytes(contents.fieldLengths[field])]),
    ['chunkDomain', typedBytes(contents.chunkDomain)],
    ['chunkDoc', typedBytes(contents.locator.doc)],
    ['chunkPage', typedBytes(contents.locator.page)],
    ['chunkSection', typedBytes(contents.locator.section)],
  ]);
  const split = Array.from({ length: termFragments }, () => new Map<string, TermPostings>());
  for (const [term, postings] of contents.postings) split[termFragment(term, termFragments)].set(term, postings);
  const terms = split.map((part, i) => encodeTermFragment(part, contents.fieldLengths, contents.chunks, i, termFragments));
  return { base, terms };
}

/** The base file as read, before any term fragment. */
export interface Bm25Base {
  chunks: number;
  fields: readonly Bm25Field[];
  avgFieldLength: readonly number[];
  fieldLengths: readonly Uint32Array[];
  domains: readonly string[];
  chunkDomain: Uint16Array;
  locator: ChunkLocator;
  termFragments: number;
  /** The number of each chunk fragment's first chunk, ascending from 0. */
  chunkFragmentStarts: readonly number[];
}

/** Decodes and checks `bm25.bin`; `source` names it in errors. */
export function decodeBm25Base(bytes: Uint8Array, source = 'bm25.bin'): Bm25Base {
  const file = readSections<Bm25Header>(bytes, BM25_FILE_MAGIC, source);
  const { header } = file;
  const fail = (reason: string) => createError('INDEX_CORRUPT', source, reason);
  if (!Number.isInteger(header.chunks) || header.chunks < 0 || !Array.isArray(header.fields) || header.fields.join() !== BM25_FIELDS.join()) throw fail('unexpected fields');
  if (!Array.isArray(header.domains) || !header.domains.every((d) => typeof d === 'string')) throw fail('malformed header');
  if (!Number.isInteger(header.termFragments) || header.termFragments < 1) throw fail('malformed header');
  const starts = header.chunkFragmentStarts;
  const ascending = Array.isArray(starts) && starts[0] === 0 && starts.every((s, i) => Number.isInteger(s) && (i === 0 || (s > starts[i - 1] && s < header.chunks)));
  if (!ascending) throw fail('chunk fragment starts are not ascending chunk numbers from 0');
  if (!Array.isArray(header.avgFieldLength) || header.avgFieldLength.length !== header.fields.length || !header.avgFieldLength.every((a) => typeof a === 'number' && Number.isFinite(a) && a >= 0)) {
    throw fail('malformed field lengths');
  }
  return {
    chunks: header.chunks,
    fields: header.fields,
    avgFieldLength: header.avgFieldLength,
    domains: header.domains,
    termFragments: header.termFragments,
    chunkFragmentStarts: starts,
    fieldLengths: header.fields.map((f) => file.array(`fieldLengths.${f}`, Uint32Array, header.chunks)),
    chunkDomain: file.array('chunkDomain', Uint16Array, header.chunks),
    locator: checkedLocator(
      {
        doc: file.array('chunkDoc', Uint32Array, header.chunks),
        page: file.array('chunkPage', Uint32Array, header.chunks),
        section: file.array('chunkSection', Uint32Array, header.chunks),
      },
      fail,
    ),
  };
}

/** A section's id is the first chunk of its section: never after the chunk, and of the same document and page. */
function checkedLocator(locator: ChunkLocator, fail: (reason: string) => Error): ChunkLocator {
  const { doc, page, section } = locator;
  for (let i = 0; i < section.length; i++) {
    const s = section[i];
    if (s > i || doc[s] !== doc[i] || page[s] !== page[i]) throw fail(`chunk ${i} names section ${s}, not one of its page`);
  }
  return locator;
}

/**
 * The BM25 index as search reads it: the base's statistics and the term fragments loaded so far.
 * A lookup of a term whose fragment is not loaded is refused with INDEX_FRAGMENT_MISSING rather
 * than answered "no such term": a reader that loads by need asks `missingTermFragments` first.
 */
export class Bm25File {
  readonly chunks: number;
  readonly fields: readonly Bm25Field[];
  readonly avgFieldLength: readonly number[];
  readonly fieldLengths: readonly Uint32Array[];
  readonly domains: readonly string[];
  readonly chunkDomain: Uint16Array;
  readonly locator: ChunkLocator;
  readonly termFragments: number;
  readonly chunkFragmentStarts: readonly number[];
  private readonly parts: (Bm25Terms | null)[];
  private readonly source: string;

  /** The base alone: term fragments come in through `addTerms`. */
  constructor(base: Bm25Base, source = 'bm25.bin') {
    this.chunks = base.chunks;
    this.fields = base.fields;
    this.avgFieldLength = base.avgFieldLength;
    this.fieldLengths = base.fieldLengths;
    this.domains = base.domains;
    this.chunkDomain = base.chunkDomain;
    this.locator = base.locator;
    this.termFragments = base.termFragments;
    this.chunkFragmentStarts = base.chunkFragmentStarts;
    this.source = source;
    this.parts = new Array<Bm25Terms | null>(base.termFragments).fill(null);
  }

  /** Decodes a base and all its term fragments (`terms[i]`: fragment i's inflated bytes). */
  static decode(base: Uint8Array, terms: readonly Uint8Array[], source = 'bm25.bin', options: { walked?: boolean } = {}): Bm25File {
    const decoded = decodeBm25Base(base, source);
    if (terms.length !== decoded.termFragments) throw createError('INDEX_CORRUPT', source, `${terms.length} term fragments for the ${decoded.termFragments} it names`);
    const file = new Bm25File(decoded, source);
    terms.forEach((bytes, i) => file.addTerms(i, bytes, `terms-${i}.bin`, options));
    return file;
  }

  /** Decodes term fragment `fragment`'s bytes against this base and makes its terms searchable. */
  addTerms(fragment: number, bytes: Uint8Array, source: string, options: { walked?: boolean } = {}): Bm25Terms {
    if (!Number.isInteger(fragment) || fragment < 0 || fragment >= this.termFragments) throw createError('INDEX_CORRUPT', source, `not one of the ${this.termFragments} term fragments`);
    const part = Bm25Terms.decode(bytes, { chunks: this.chunks, fragment, fragments: this.termFragments }, source, options);
    this.parts[fragment] = part;
    return part;
  }

  /** The chunk fragment that holds chunk `i`. */
  chunkFragmentOf(i: number): number {
    const starts = this.chunkFragmentStarts;
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= i) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Whether term fragment `fragment` is loaded. */
  hasTerms(fragment: number): boolean {
    return this.parts[fragment] != null;
  }

  /** Which term fragment holds `term`. */
  fragmentOf(term: string): number {
    return termFragment(term, this.termFragments);
  }

  /** The fragments, not loaded yet, that a search for these terms reads. */
  missingTermFragments(terms: Iterable<string>): number[] {
    const missing = new Set<number>();
    for (const term of terms) {
      const f = this.fragmentOf(term);
      if (!this.parts[f]) missing.add(f);
    }
    return [...missing].sort((a, b) => a - b);
  }

  /** Whether every term fragment is loaded. */
  get complete(): boolean {
    return this.parts.every((p) => p !== null);
  }

  /** Terms in the loaded fragments. */
  get terms(): number {
    return this.parts.reduce((n, p) => n + (p?.terms ?? 0), 0);
  }

  /** The term's postings per field, or null when no chunk has it. */
  lookup(term: string): (PostingsRef | null)[] | null {
    const f = this.fragmentOf(term);
    const part = this.parts[f];
    if (!part) throw createError('INDEX_FRAGMENT_MISSING', `term fragment ${f} of ${this.source}`);
    return part.lookup(term);
  }

  /** Decodes postings into `ids` and `tfs` (each at least `ref.df` long) and returns how many. */
  decodePostings(field: number, ref: PostingsRef, ids: Uint32Array, tfs: Uint32Array): number {
    const part = this.parts[ref.fragment];
    if (!part) throw createError('INDEX_FRAGMENT_MISSING', `term fragment ${ref.fragment} of ${this.source}`);
    return part.decodePostings(field, ref, ids, tfs);
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
