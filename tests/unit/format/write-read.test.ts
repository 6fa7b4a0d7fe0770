import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readIndexFolder } from '../../../builder/read-index-folder.ts';
import { writeIndex, type FragmentPlan } from '../../../builder/write/write-index.ts';
import { isHarelError } from '../../../widget/core/errors.ts';
import { compileBm25 } from '../../../widget/core/format/compile-bm25.ts';
import { Retriever } from '../../../widget/core/retrieval/retriever.ts';
import { packVectors } from '../../../widget/core/format/int8.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';

const documents: IndexedDocument[] = [
  { file: 'car/policy.pdf', url: 'https://example.test/car.pdf', domain: 'car', lang: 'he', title: 'פוליסת רכב', kind: 'pdf', pageCount: 2 },
  { file: 'travel/faq.txt', url: null, domain: 'travel', lang: 'en', title: 'Travel FAQ', kind: 'txt', pageCount: 1 },
];
const chunks: Chunk[] = [
  { id: 'a1', doc: 0, page: 1, sectionPath: ['כיסויים'], clause: '2.1', parentId: 's1', text: 'הפוליסה מכסה נזק לרכב בתאונה.', tokens: 8 },
  { id: 'a2', doc: 0, page: 2, sectionPath: ['השתתפות עצמית'], clause: '4', parentId: 's2', text: 'ההשתתפות העצמית היא 1,200 ש"ח לכל מקרה.', tokens: 10 },
  { id: 'b1', doc: 1, page: 1, sectionPath: ['Baggage'], clause: null, parentId: 's3', text: 'Lost baggage is covered up to 3,000 dollars.', tokens: 9 },
];

function unit(values: number[]): Float32Array {
  const v = Float32Array.from(values);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'harel-index-'));
  dirs.push(d);
  return d;
}
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function writeSample(out: string, fragments?: FragmentPlan) {
  const vectors = [unit([1, 0, 0, 0]), unit([0, 1, 0, 0]), unit([0, 0, 1, 1])];
  const packed = packVectors(vectors);
  return writeIndex(out, {
    documents,
    chunks,
    bm25: compileBm25(chunks, documents),
    vectors: { count: 3, dim: 4, scales: packed.scales, data: packed.data },
    embedder: { id: 'fixture/tiny-embedder', dimensions: 4, quantization: 'int8-per-vector-scale', passagePrefix: 'passage: ', queryPrefix: 'query: ', fixture: true },
    router: null,
    ...(fragments ? { fragments } : {}),
  });
}

describe('writeIndex / readIndex', () => {
  it('splits a build into term and chunk fragments that read back as the whole build, with the same scores', async () => {
    const wholeDir = join(await tempDir(), 'whole');
    const whole = await writeSample(wholeDir);
    expect(whole.fragments).toEqual({ terms: 1, chunks: 1 });
    expect(Object.keys(whole.files).sort()).toEqual(['bm25', 'chunks-0', 'documents', 'terms-0', 'vectors']);
    const out = join(await tempDir(), 'split');
    // One document a chunk fragment (the car policy's two chunks stay together), terms in 5 by hash.
    const split = await writeSample(out, { terms: 5, chunksPerFragment: 1 });
    expect(split.fragments).toEqual({ terms: 5, chunks: 2 });
    expect(Object.keys(split.files).filter((k) => k.startsWith('terms-'))).toHaveLength(5);
    expect(split.buildId).not.toBe(whole.buildId);
    const index = await readIndexFolder(out);
    expect(index.chunks).toEqual(chunks);
    expect(index.bm25.termFragments).toBe(5);
    expect(index.bm25.complete).toBe(true);
    const wholeIndex = await readIndexFolder(wholeDir);
    expect(index.bm25.terms).toBe(wholeIndex.bm25.terms);
    for (const q of ['כמה השתתפות עצמית בביטוח הרכב', 'lost baggage', 'נזק לרכב בתאונה']) {
      const a = new Retriever(index).search(q, { mode: 'bm25', route: false });
      const b = new Retriever(wholeIndex).search(q, { mode: 'bm25', route: false });
      expect(
        a.hits.map((h) => [h.chunkId, h.score]),
        q,
      ).toEqual(b.hits.map((h) => [h.chunkId, h.score]));
      expect(a.hits.length).toBeGreaterThan(0);
    }
  });

  it('refuses a split build whose chunk fragments do not follow each other', async () => {
    const out = join(await tempDir(), 'split');
    const manifest = await writeSample(out, { terms: 2, chunksPerFragment: 1 });
    // The two chunk fragments listed the other way round: each passes its hash, the order does not.
    const swapped = { ...manifest, files: { ...manifest.files, 'chunks-0': manifest.files['chunks-1'], 'chunks-1': manifest.files['chunks-0'] } };
    await writeFile(join(out, 'manifest.json'), JSON.stringify(swapped));
    await expect(readIndexFolder(out)).rejects.toThrowError(/holds chunks 2–2, the BM25 base places fragment 0 at 0–1/);
  });

  it('writes a manifest whose sizes and hashes the reader verifies, and round-trips the contents', async () => {
    const out = join(await tempDir(), 'index');
    const manifest = await writeSample(out);
    expect(manifest.counts).toMatchObject({ documents: 2, chunks: 3, pages: 3 });
    expect(manifest.counts.byDomain.car).toEqual({ documents: 1, chunks: 2 });
    expect(manifest.counts.byLang.en).toEqual({ documents: 1, chunks: 1 });
    const index = await readIndexFolder(out);
    expect(index.chunks).toEqual(chunks);
    expect(index.documents).toEqual(documents);
    expect(index.vectors?.count).toBe(3);
    // No temporary folder is left beside the index.
    expect((await readdir(join(out, '..'))).filter((f) => f.includes('tmp'))).toEqual([]);
  });

  it('writes the mined lexicon as an optional file that round-trips, and loads builds without it', async () => {
    const out = join(await tempDir(), 'index');
    const lexicon = { version: 1 as const, entries: [{ phrases: ['CANCER', 'סרטן'], kind: 'translation' as const, docs: 1 }] };
    const manifest = await writeIndex(out, {
      documents,
      chunks,
      bm25: compileBm25(chunks, documents),
      vectors: null,
      embedder: null,
      router: null,
      lexicon,
    });
    expect(manifest.files.lexicon?.path).toBe('lexicon.json.gz');
    expect(manifest.formatVersion).toBe(3);
    expect((await readIndexFolder(out)).lexicon).toEqual(lexicon);
    const without = join(await tempDir(), 'plain');
    const plain = await writeSample(without);
    expect(plain.files.lexicon).toBeUndefined();
    expect((await readIndexFolder(without)).lexicon).toBeNull();
  });

  it('gives the same build id to the same contents', async () => {
    const a = await writeSample(join(await tempDir(), 'a'));
    const b = await writeSample(join(await tempDir(), 'b'));
    expect(a.buildId).toBe(b.buildId);
  });

  it('searches the restored index: Hebrew BM25 with prefixes, domain filter, vectors', async () => {
    const out = join(await tempDir(), 'index');
    await writeSample(out);
    const retriever = new Retriever(await readIndexFolder(out));
    const bm25 = retriever.search('כמה השתתפות עצמית בביטוח הרכב', { mode: 'bm25', k: 3, route: false });
    expect(bm25.hits[0].chunkId).toBe('a2');
    expect(bm25.hits[0].file).toBe('car/policy.pdf');
    expect(bm25.hits[0].page).toBe(2);
    const filtered = retriever.search('baggage', { mode: 'bm25', domain: 'car', k: 3 });
    expect(filtered.hits.every((h) => h.domain === 'car')).toBe(true);
    const vector = retriever.search('anything', { mode: 'vector', queryVector: unit([0, 0, 1, 1]), k: 1, route: false });
    expect(vector.mode).toBe('vector');
    expect(vector.hits[0].chunkId).toBe('b1');
    expect(vector.hits[0].vector).toBeGreaterThan(0.98);
    // Without a query vector, vector modes fall back to BM25 and say so.
    expect(retriever.search('baggage', { mode: 'hybrid', route: false }).mode).toBe('bm25');
  });

  it('rejects a tampered file and a truncated file with INDEX_INTEGRITY', async () => {
    const out = join(await tempDir(), 'index');
    const manifest = await writeSample(out);
    const path = join(out, manifest.files['chunks-0']!.path);
    const original = await readFile(path);
    const tampered = Buffer.from(original);
    tampered[tampered.length - 5] ^= 0x01;
    await writeFile(path, tampered);
    await expect(readIndexFolder(out)).rejects.toSatisfy((e) => isHarelError(e, 'INDEX_INTEGRITY'));
    await writeFile(path, original.subarray(0, original.length - 3));
    await expect(readIndexFolder(out)).rejects.toThrowError(/expected \d+ bytes/);
  });

  it('reports a folder without a manifest as INDEX_NOT_FOUND', async () => {
    await expect(readIndexFolder(await tempDir())).rejects.toSatisfy((e) => isHarelError(e, 'INDEX_NOT_FOUND'));
  });

  it('replaces a previous build in place', async () => {
    const out = join(await tempDir(), 'index');
    await writeSample(out);
    const second = await writeSample(out);
    expect(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')).buildId).toBe(second.buildId);
  });
});
