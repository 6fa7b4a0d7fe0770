import { describe, expect, it } from 'vitest';
import { chunkFragmentStarts, decodeChunkStore, encodeChunkStore } from '../../../widget/core/format/chunk-store.ts';
import { gunzip, gzip, sha256Hex } from '../../../widget/core/format/bytes.ts';
import { parseManifest, INDEX_FORMAT, INDEX_FORMAT_VERSION } from '../../../widget/core/format/manifest.ts';
import { decodeVectorTable, encodeVectorTable } from '../../../widget/core/format/vector-file.ts';
import { isHarelError } from '../../../widget/core/errors.ts';
import type { Chunk } from '../../../widget/core/schema.ts';

const chunk = (i: number, over: Partial<Chunk> = {}): Chunk => ({
  id: `id${i}`,
  doc: i % 2,
  page: i + 1,
  sectionPath: ['פרק ב', i % 2 ? 'כיסויים' : 'חריגים'],
  clause: i % 3 === 0 ? null : `3.${i}`,
  parentId: `p${i % 2}`,
  text: `טקסט ${i} with English`,
  tokens: 10 + i,
  ...over,
});

describe('chunk store (chunks-<i>.bin)', () => {
  it('round-trips chunks, sharing repeated headings in one string table', () => {
    const chunks = Array.from({ length: 6 }, (_, i) => chunk(i));
    const bytes = encodeChunkStore(chunks);
    const text = new TextDecoder().decode(bytes);
    expect(text.split('פרק ב')).toHaveLength(2);
    expect(decodeChunkStore(bytes)).toEqual({ first: 0, chunks });
  });

  it('keeps twin groups, texts with characters outside the BMP, and empty section paths', () => {
    const chunks = [chunk(0, { twin: 3, pageTwin: 5 }), chunk(1, { text: 'emoji 🚗 ואז עברית', sectionPath: [] }), chunk(2, { text: '' })];
    expect(decodeChunkStore(encodeChunkStore(chunks, 40))).toEqual({ first: 40, chunks });
  });

  it('reads a store that starts at an unaligned offset of a larger buffer (Node reads files into pooled buffers)', () => {
    const bytes = encodeChunkStore([chunk(0), chunk(1)]);
    const shifted = new Uint8Array(bytes.length + 1);
    shifted.set(bytes, 1);
    expect(decodeChunkStore(shifted.subarray(1)).chunks).toEqual([chunk(0), chunk(1)]);
  });

  it('refuses a truncated store or one of another kind with INDEX_CORRUPT', () => {
    const bytes = encodeChunkStore([chunk(0), chunk(1)]);
    for (const bad of [bytes.subarray(0, bytes.length - 8), bytes.subarray(0, 6), new TextEncoder().encode('{"count":2}')]) {
      expect(() => decodeChunkStore(bad)).toThrowError(expect.objectContaining({ code: 'INDEX_CORRUPT' }));
    }
  });

  it('cuts fragments at document ends once they hold the target, a long document whole', () => {
    const docs = (...lengths: number[]) => lengths.flatMap((n, doc) => Array.from({ length: n }, () => ({ doc })));
    expect(chunkFragmentStarts(docs(3, 3, 3), 100)).toEqual([0]);
    expect(chunkFragmentStarts(docs(3, 3, 3), 5)).toEqual([0, 6]);
    expect(chunkFragmentStarts(docs(2, 12, 1, 1), 4)).toEqual([0, 14]);
    expect(chunkFragmentStarts(docs(4, 4, 4), 4)).toEqual([0, 4, 8]);
    expect(chunkFragmentStarts([], 4)).toEqual([0]);
  });
});

describe('vector file', () => {
  it('round-trips int8 vectors and scales', () => {
    const table = { count: 3, dim: 4, scales: new Float32Array([0.5, 0.25, 1]), data: new Int8Array([1, -2, 3, -4, 127, -127, 0, 5, 9, 9, 9, 9]) };
    const back = decodeVectorTable(encodeVectorTable(table));
    expect(back.count).toBe(3);
    expect(back.dim).toBe(4);
    expect([...back.scales]).toEqual([0.5, 0.25, 1]);
    expect([...back.data]).toEqual([...table.data]);
  });

  it('rejects a truncated file', () => {
    const bytes = encodeVectorTable({ count: 2, dim: 2, scales: new Float32Array([1, 1]), data: new Int8Array([1, 2, 3, 4]) });
    expect(() => decodeVectorTable(bytes.slice(0, bytes.length - 1))).toThrowError(/expected 24 bytes/);
  });
});

describe('bytes', () => {
  it('gzips and gunzips with the web streams both Node and browsers have', async () => {
    const text = new TextEncoder().encode('ביטוח רכב '.repeat(100));
    const packed = await gzip(text);
    expect(packed.length).toBeLessThan(text.length / 5);
    expect(new TextDecoder().decode(await gunzip(packed))).toBe('ביטוח רכב '.repeat(100));
  });

  it('hashes with SubtleCrypto', async () => {
    expect(await sha256Hex(new TextEncoder().encode('abc'))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('manifest', () => {
  const file = (path: string) => ({ path, encoding: 'gzip', bytes: 10, rawBytes: 20, sha256: 'a'.repeat(64) });
  const base = {
    format: INDEX_FORMAT,
    formatVersion: INDEX_FORMAT_VERSION,
    buildId: 'b',
    counts: { documents: 1, chunks: 1, pages: 1, byDomain: {}, byLang: {} },
    fragments: { terms: 1, chunks: 1 },
    files: { documents: file('documents.json.gz'), 'chunks-0': file('chunks-0.bin.gz'), bm25: file('bm25.bin.gz'), 'terms-0': file('terms-0.bin.gz') },
  };

  it('accepts a valid manifest and fills retrieval defaults', () => {
    expect(parseManifest(base).retrieval.bm25Weight).toBeGreaterThan(0);
  });

  it('refuses another format version with a code that says to rebuild', () => {
    try {
      parseManifest({ ...base, formatVersion: 99 });
      expect.unreachable();
    } catch (error) {
      expect(isHarelError(error, 'INDEX_FORMAT_UNSUPPORTED')).toBe(true);
      expect((error as Error).message).toMatch(/Rebuild/);
    }
  });

  it('refuses a manifest that lists no chunk fragment, or fewer fragments than it counts', () => {
    expect(() => parseManifest({ ...base, files: { documents: file('d.gz'), bm25: file('b.gz'), 'terms-0': file('t.gz') } })).toThrowError(/chunks-0/);
    expect(() => parseManifest({ ...base, fragments: { terms: 2, chunks: 1 } })).toThrowError(/terms-1 is not listed/);
    for (const fragments of [undefined, { terms: 0, chunks: 1 }, { terms: 1.5, chunks: 1 }, { terms: 1 }, { terms: '1', chunks: 1 }]) {
      expect(() => parseManifest({ ...base, fragments }), JSON.stringify(fragments)).toThrowError(expect.objectContaining({ code: 'INDEX_CORRUPT' }));
    }
  });

  it('refuses a format-2 manifest (one chunk store, one BM25 file) with a code that says to rebuild', () => {
    const old = { ...base, formatVersion: 2, fragments: undefined, files: { documents: file('documents.json.gz'), chunks: file('chunks.bin.gz'), bm25: file('bm25.bin.gz') } };
    expect(() => parseManifest(old)).toThrowError(expect.objectContaining({ code: 'INDEX_FORMAT_UNSUPPORTED' }));
  });

  it('refuses file entries of the wrong type as INDEX_CORRUPT (found by fuzzing manifests)', () => {
    const cases: [string, unknown][] = [
      ['bytes', true],
      ['bytes', 1e300],
      ['rawBytes', -1],
      ['path', 5],
      ['path', '../../etc/passwd'],
      ['path', 'manifest.json'],
      ['sha256', 7],
      ['encoding', 'br'],
    ];
    for (const [field, value] of cases) {
      const files = { ...base.files, 'chunks-0': { ...file('chunks-0.bin.gz'), [field]: value } };
      expect(() => parseManifest({ ...base, files }), `${field}: ${JSON.stringify(value)}`).toThrowError(/files\.chunks-0/);
      try {
        parseManifest({ ...base, files });
      } catch (error) {
        expect(isHarelError(error, 'INDEX_CORRUPT')).toBe(true);
      }
    }
    expect(() => parseManifest({ ...base, retrieval: { bm25Weight: 'x' } })).toThrowError(/retrieval.bm25Weight/);
    expect(() => parseManifest({ ...base, embedder: { id: 'e', dimensions: true, passagePrefix: '', queryPrefix: '' } })).toThrowError(/embedder.dimensions/);
    expect(() => parseManifest({ ...base, counts: { ...base.counts, chunks: 'many' } })).toThrowError(/counts/);
  });

  it('keeps only the file roles a reader knows', () => {
    const parsed = parseManifest({ ...base, files: { ...base.files, extra: { path: 5 }, 'terms-1': file('terms-1.bin.gz'), chunks: file('chunks.bin.gz') } });
    expect(Object.keys(parsed.files).sort()).toEqual(['bm25', 'chunks-0', 'documents', 'terms-0']);
  });
});
