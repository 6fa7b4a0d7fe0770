/**
 * Format 2's BM25: the postings file round-trips, and its scorer gives the reference (Orama)
 * scores and rankings, with and without a domain filter, whatever k and however much it prunes.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bm25Tokenizer, buildBm25State, restoreBm25, searchBm25, type Bm25Database } from '../../../builder/eval/orama-bm25.ts';
import { compileBm25, compileBm25File } from '../../../widget/core/format/compile-bm25.ts';
import { Bm25File, encodeBm25Files } from '../../../widget/core/format/bm25-file.ts';
import { DEFAULT_RETRIEVAL } from '../../../widget/core/format/manifest.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { Bm25Index } from '../../../widget/core/retrieval/bm25-index.ts';
import { tokenize } from '../../../widget/core/tokenizer/tokenize.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';
import { buildDemoIndex } from '../loop/helpers.ts';

const doc = (i: number, domain: string): IndexedDocument => ({ file: `${domain}/f${i}.txt`, url: null, domain, lang: 'he', title: `מסמך ${i}`, kind: 'txt', pageCount: 1 });
const chunk = (doc: number, text: string, i: number): Chunk => ({ id: `c${i}`, doc, page: 1, sectionPath: ['פרק'], clause: null, parentId: `p${i}`, text, tokens: 1 });

function decodeAll(file: Bm25File, field: number, term: string): [number, number][] {
  const ref = file.lookup(term)?.[field];
  if (!ref) return [];
  const ids = new Uint32Array(ref.df);
  const tfs = new Uint32Array(ref.df);
  file.decodePostings(field, ref, ids, tfs);
  return [...ids].map((id, i) => [id, tfs[i]]);
}

describe('bm25.bin', () => {
  // More than one dictionary block of 16 terms, terms that prefix others, Hebrew, English and numbers.
  const texts = [
    'ביטוח רכב רכב מקיף 1,200 ש"ח car cars',
    'רכבת ורכב חלופי insurance baggage lost lost lost',
    "דירה מבנה תכולה 3.2.4 צד ג' ביטוח",
    'abc abcd abcde ab a1 zz zzz',
    'תאונה תאונות נזק נזקים גרירה שמשה',
  ];
  const documents = texts.map((_, i) => doc(i, i % 2 ? 'car' : 'apartment'));
  const chunks = texts.map((t, i) => chunk(i, t, i));

  it('round-trips every term’s postings, field by field', () => {
    const contents = compileBm25(chunks, documents);
    const { base, terms } = encodeBm25Files(contents);
    const file = Bm25File.decode(base, terms);
    expect(file.terms).toBe(contents.postings.size);
    expect(file.terms).toBeGreaterThan(32);
    for (const [term, fields] of contents.postings) {
      for (const [f, field] of (['body', 'context'] as const).entries()) {
        const flat = fields[field] ?? [];
        const pairs: [number, number][] = [];
        for (let i = 0; i < flat.length; i += 2) pairs.push([flat[i], flat[i + 1]]);
        expect(decodeAll(file, f, term), `${term} in ${field}`).toEqual(pairs);
      }
    }
    expect([...file.fieldLengths[0]]).toEqual([...contents.fieldLengths.body]);
    expect(file.domainOf(1)).toBe('car');
  });

  it('finds nothing for terms outside the dictionary: before the first, after the last, between two', () => {
    const file = compileBm25File(chunks, documents);
    for (const term of ['', '!', 'aa', 'abcdef', 'zzzz', '\uffff', 'רכבים']) expect(file.lookup(term), term).toBeNull();
  });

  it('refuses a truncated file or another kind of file with INDEX_CORRUPT', () => {
    const { base, terms } = encodeBm25Files(compileBm25(chunks, documents));
    const cut = (bytes: Uint8Array) => [bytes.subarray(0, bytes.length - 20), bytes.subarray(0, 7), new TextEncoder().encode('{"index":{}}')];
    for (const bad of cut(base)) expect(() => Bm25File.decode(bad, terms)).toThrowError(expect.objectContaining({ code: 'INDEX_CORRUPT' }));
    for (const bad of cut(terms[0])) expect(() => Bm25File.decode(base, [bad])).toThrowError(expect.objectContaining({ code: 'INDEX_CORRUPT' }));
  });
});

describe('format 2 BM25 scores equal the reference BM25 (Orama) on the demo corpus', () => {
  let index: LoadedIndex;
  let cleanup: () => Promise<void>;
  let reference: Bm25Database;
  let postings: Bm25Index;
  const questions = (JSON.parse(readFileSync(new URL('../../../demo/questions.json', import.meta.url), 'utf8')) as { question: string }[]).map((q) => q.question);

  beforeAll(async () => {
    ({ index, cleanup } = await buildDemoIndex());
    const tokenizer = bm25Tokenizer(DEFAULT_RETRIEVAL);
    reference = restoreBm25(await buildBm25State(index.chunks, index.documents, tokenizer), tokenizer);
    postings = new Bm25Index(index.bm25);
  });
  afterAll(() => cleanup?.());

  it('gives the same chunks in the same order with the same scores, bit for bit', () => {
    const domains = [null, ...new Set(index.documents.map((d) => d.domain))];
    let compared = 0;
    for (const q of questions) {
      for (const domain of domains) {
        for (const k of [3, 10, 150]) {
          for (const contextBoost of [0.5, 1]) {
            const theirs = searchBm25(reference, q, { k, domain, contextBoost });
            expect(postings.search(q, { k, domain, contextBoost }), `${q} / ${domain} / k ${k}`).toEqual(theirs);
            compared += theirs.length;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });

  it('prunes without changing the top k: the first k of an exhaustive search', () => {
    for (const q of questions) {
      const all = postings.search(q, { k: index.chunks.length });
      for (const k of [1, 5, 20]) expect(postings.search(q, { k }), `${q} / k ${k}`).toEqual(all.slice(0, k));
    }
  });

  it('returns nothing for an unknown domain, no terms, or k 0', () => {
    expect(postings.search(questions[0], { k: 5, domain: 'no-such-domain' })).toEqual([]);
    expect(postings.search('   ', { k: 5 })).toEqual([]);
    expect(postings.search(questions[0], { k: 0 })).toEqual([]);
  });

  it('counts the chunks whose body holds a term', () => {
    for (const term of ['ביטוח', 'השתתפות', 'רכב', 'nonexistent']) {
      const expected = index.chunks.filter((c) => tokenize(c.text).includes(term)).length;
      expect(postings.documentFrequency(term), term).toBe(expected);
    }
    expect(postings.documentFrequency('ביטוח')).toBeGreaterThan(0);
  });
});
