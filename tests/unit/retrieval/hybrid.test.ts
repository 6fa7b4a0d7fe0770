/**
 * Hybrid search reads its fusion (method, weight, RRF k, each side's pool) from the build's
 * retrieval defaults, and search() is exactly candidates() then fuseCandidates(), the two steps
 * the fusion fitting script calls apart.
 */
import { describe, expect, it } from 'vitest';
import { compileBm25File } from '../../../widget/core/format/compile-bm25.ts';
import { packVectors } from '../../../widget/core/format/int8.ts';
import { DEFAULT_RETRIEVAL, INDEX_FORMAT_VERSION, parseManifest, type RetrievalDefaults } from '../../../widget/core/format/manifest.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { fuseRanks } from '../../../widget/core/retrieval/fuse.ts';
import { FITTED_FUSION } from '../../../widget/core/retrieval/fusion-defaults.ts';
import { FIRST_STAGE_POOL, Retriever } from '../../../widget/core/retrieval/retriever.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';

const DIM = 4;
const unit = (v: number[]) => {
  const n = Math.hypot(...v);
  return Float32Array.from(v.map((x) => x / n));
};

function retriever(overrides: Partial<RetrievalDefaults> = {}): Retriever {
  const documents: IndexedDocument[] = [{ file: 'car/policy.pdf', url: null, domain: 'car', lang: 'he', title: 'פוליסה', kind: 'pdf', pageCount: 6 }];
  const texts = ['ביטוח רכב מקיף כולל גרירה', 'גרירה של הרכב לאחר תאונה', 'שמשות ופנסים', 'השתתפות עצמית בתאונה', 'רכב חלופי בזמן תיקון', 'ביטול הפוליסה'];
  const chunks: Chunk[] = texts.map((text, i) => ({ id: `c${i}`, doc: 0, page: i + 1, sectionPath: [], clause: null, parentId: `p${i}`, text, tokens: 5 }));
  const vectors = [unit([1, 0, 0, 0]), unit([0.9, 0.1, 0, 0]), unit([0, 1, 0, 0]), unit([0.5, 0.5, 0.1, 0]), unit([0, 0, 1, 0]), unit([0.2, 0, 0, 1])];
  const packed = packVectors(vectors);
  const retrieval = { ...DEFAULT_RETRIEVAL, ...overrides };
  return new Retriever({
    manifest: { retrieval } as LoadedIndex['manifest'],
    documents,
    chunks,
    bm25: compileBm25File(chunks, documents),
    vectors: { count: vectors.length, dim: DIM, data: packed.data, scales: packed.scales },
    router: null,
  } satisfies LoadedIndex);
}

const queryVector = unit([0.7, 0.3, 0.1, 0]);

describe('hybrid fusion settings', () => {
  it('search() ranks what candidates() and fuseCandidates() rank', () => {
    for (const fusion of ['minmax', 'rrf'] as const) {
      const r = retriever({ fusion, bm25Weight: 0.4, rrfK: 10 });
      const hits = r.search('גרירה בתאונה', { queryVector, k: 6 }).hits.map((h) => h.chunk);
      const fused = r.fuseCandidates(r.candidates('גרירה בתאונה', { queryVector }));
      expect(hits).toEqual(fused.map((h) => h.chunk).slice(0, hits.length));
    }
  });

  it('reads the method, weight and k from the build and takes each side’s hybrid pool from it', () => {
    const r = retriever({ fusion: 'rrf', bm25Weight: 0.3, rrfK: 5, bm25Pool: 1, vectorPool: 2 });
    const c = r.candidates('גרירה בתאונה', { queryVector });
    expect(c.mode).toBe('hybrid');
    expect(c.bm25).toHaveLength(1);
    expect(c.vector).toHaveLength(2);
    expect(r.search('גרירה בתאונה', { queryVector, k: 3 }).hits.map((h) => h.chunk)).toEqual(fuseRanks(c.bm25, c.vector, 0.3, 5).map((h) => h.chunk));
    // Options override the build's settings; a single-sided search keeps the fixed pool.
    expect(r.candidates('גרירה בתאונה', { queryVector, bm25Pool: 4 }).bm25.length).toBeGreaterThan(1);
    expect(r.candidates('גרירה בתאונה', { mode: 'vector', queryVector }).vector).toHaveLength(Math.min(FIRST_STAGE_POOL, 6));
  });

  it('gives a build from before the fit the fitted fusion, not its stored min-max weight', () => {
    const file = (path: string) => ({ path, encoding: 'gzip', bytes: 1, rawBytes: 1, sha256: '0'.repeat(64) });
    const base = {
      format: 'harel-chat-index',
      formatVersion: INDEX_FORMAT_VERSION,
      buildId: 'b',
      fragments: { terms: 1, chunks: 1 },
      files: { documents: file('documents.json.gz'), 'chunks-0': file('chunks-0.bin.gz'), bm25: file('bm25.bin.gz'), 'terms-0': file('terms-0.bin.gz') },
      counts: { documents: 1, chunks: 1, pages: 1, byDomain: {}, byLang: {} },
    };
    const old = parseManifest({ ...base, retrieval: { ...DEFAULT_RETRIEVAL, fusion: undefined, bm25Weight: 0.123, routeBoost: 0.2 } });
    expect(old.retrieval).toMatchObject({ ...FITTED_FUSION, routeBoost: 0.2 });
    const fitted = parseManifest({ ...base, retrieval: { fusion: 'minmax', bm25Weight: 0.123 } });
    expect(fitted.retrieval.fusion).toBe('minmax');
    expect(fitted.retrieval.bm25Weight).toBe(0.123);
  });
});
