/**
 * The page reranker's E5 features (experiments/page-features.ts): a page's cosine reads every
 * chunk of the page, not only those the pool holds; each side's page rank is the rank of the page's
 * best chunk; without vectors the E5 features are zero and the lexical ones unchanged.
 */
import { describe, expect, it } from 'vitest';
import { candidateFeatures, chunksByPage, PAGE_FEATURES, pageRanks, type RerankContext } from '../page-features.ts';
import type { PageCandidate } from '../../widget/core/retrieval/page-groups.ts';
import type { Chunk, IndexedDocument } from '../../widget/core/schema.ts';
import { contentWords } from '../../widget/text/terms.ts';

const chunk = (doc: number, page: number, text: string, n: number): Chunk => ({ id: `c${n}`, doc, page, sectionPath: [], clause: null, parentId: `p${doc}:${page}`, text, tokens: 10 });
const chunks: Chunk[] = [
  chunk(0, 1, 'windscreen replacement excess is 300 shekels', 0),
  chunk(0, 1, 'glass damage is covered by the comprehensive policy', 1),
  chunk(0, 2, 'theft of the vehicle is covered', 2),
  chunk(1, 1, 'travel insurance covers lost luggage', 3),
];
const documents: IndexedDocument[] = [
  { file: 'car.pdf', url: null, domain: 'car', lang: 'en', title: 'Car policy', kind: 'pdf', pageCount: 2 },
  { file: 'travel.pdf', url: null, domain: 'travel', lang: 'en', title: 'Travel policy', kind: 'pdf', pageCount: 1 },
];
// The pool holds one chunk of page car.pdf:1 (chunk 0), and the other pages.
const pages: PageCandidate[] = [
  { doc: 0, page: 1, chunks: [0], scores: [5] },
  { doc: 0, page: 2, chunks: [2], scores: [3] },
  { doc: 1, page: 1, chunks: [3], scores: [1] },
];
const question = 'windscreen excess';
const words = contentWords(question);
const base: RerankContext = { chunks, documents, words, idf: words.map(() => 1), route: null };
const column = (name: string) => PAGE_FEATURES.indexOf(name as (typeof PAGE_FEATURES)[number]);

describe('page features with E5 evidence', () => {
  it('groups chunks by page and ranks pages by their best chunk', () => {
    expect([...chunksByPage(chunks)]).toEqual([
      ['0:1', [0, 1]],
      ['0:2', [2]],
      ['1:1', [3]],
    ]);
    expect([...pageRanks([{ chunk: 3 }, { chunk: 1 }, { chunk: 0 }, { chunk: 2 }], chunks)]).toEqual([
      ['1:1', 1],
      ['0:1', 2],
      ['0:2', 3],
    ]);
  });

  it("reads a page's cosine over all its chunks, the gap to the best page, and each side's rank", () => {
    // Chunk 1 (not in the pool) is the closest to the question: page car.pdf:1 gets its cosine.
    const cosine = Float32Array.from([0.5, 0.9, 0.4, 0.2]);
    const semantic = { cosine, pageChunks: chunksByPage(chunks), bm25Pages: new Map([['0:1', 1]]), vectorPages: new Map([['0:2', 2]]) };
    const rows = candidateFeatures(pages, { ...base, semantic });
    const at = (row: number, name: string) => rows[row][column(name)];
    expect(at(0, 'pageCosine')).toBeCloseTo(0.9);
    expect(at(0, 'pageCosine2')).toBeCloseTo(0.5);
    expect(at(0, 'cosineGap')).toBeCloseTo(0);
    expect(at(1, 'pageCosine')).toBeCloseTo(0.4);
    expect(at(1, 'pageCosine2')).toBe(0);
    expect(at(1, 'cosineGap')).toBeCloseTo(0.5);
    expect(at(0, 'bm25PageRank')).toBe(1);
    expect(at(0, 'vectorPageRank')).toBe(0);
    expect(at(1, 'vectorPageRank')).toBe(0.5);
  });

  it('leaves the E5 features at zero without vectors, and the lexical ones as they were', () => {
    const lexical = candidateFeatures(pages, base);
    const withVectors = candidateFeatures(pages, {
      ...base,
      semantic: { cosine: new Float32Array(4).fill(0.7), pageChunks: chunksByPage(chunks), bm25Pages: new Map(), vectorPages: new Map() },
    });
    for (const name of ['pageCosine', 'pageCosine2', 'cosineGap', 'bm25PageRank', 'vectorPageRank']) expect(lexical.map((r) => r[column(name)])).toEqual([0, 0, 0]);
    const lexicalColumns = PAGE_FEATURES.map((_, i) => i).filter((i) => !['pageCosine', 'pageCosine2', 'cosineGap', 'bm25PageRank', 'vectorPageRank'].includes(PAGE_FEATURES[i]));
    expect(withVectors.map((r) => lexicalColumns.map((i) => r[i]))).toEqual(lexical.map((r) => lexicalColumns.map((i) => r[i])));
    expect(lexical[0][column('bodyCoverage')]).toBeGreaterThan(0);
  });
});
