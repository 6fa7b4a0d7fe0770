import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readIndexFolder } from '../../../builder/read-index-folder.ts';
import { writeIndex } from '../../../builder/write/write-index.ts';
import { isHarelError } from '../../../widget/core/errors.ts';
import { compileBm25 } from '../../../widget/core/format/compile-bm25.ts';
import { IndexByNeed } from '../../../widget/core/format/index-by-need.ts';
import type { IndexFileSource } from '../../../widget/core/format/read-index.ts';
import { Retriever } from '../../../widget/core/retrieval/retriever.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';

const WORDS = ['תאונה', 'גרירה', 'שמשה', 'השתתפות', 'עצמית', 'נזק', 'מים', 'צנרת', 'מבנה', 'תכולה', 'baggage', 'flight', 'delay', 'dental', 'crown', 'implant', 'premium', 'claim', 'refund', 'policy'];
const documents: IndexedDocument[] = Array.from({ length: 8 }, (_, d) => ({
  file: `d${d}.txt`,
  url: null,
  domain: d % 2 ? 'car' : 'travel',
  lang: 'he',
  title: `מסמך ${d}`,
  kind: 'txt',
  pageCount: 5,
}));
// Five chunks a document, each with its own mix of words: many terms, spread over the fragments.
const chunks: Chunk[] = Array.from({ length: 40 }, (_, i) => ({
  id: `c${i}`,
  doc: Math.floor(i / 5),
  page: (i % 5) + 1,
  sectionPath: [],
  clause: null,
  parentId: `p${i}`,
  text: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${WORDS[(i * 3 + 1) % WORDS.length]} מילה${i} word${i}`,
  tokens: 6,
}));

let dir: string;
let out: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'harel-by-need-'));
  out = join(dir, 'index');
  await writeIndex(out, { documents, chunks, bm25: compileBm25(chunks, documents), vectors: null, embedder: null, router: null, fragments: { terms: 8, chunksPerFragment: 10 } });
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The folder as a source that counts what is read and can be told to serve some files wrong. */
function countingSource(corrupt = new Set<string>()) {
  const reads: string[] = [];
  const source: IndexFileSource = {
    async read(path) {
      reads.push(path);
      const bytes = new Uint8Array(await readFile(join(out, path)));
      if (corrupt.has(path)) bytes[bytes.length - 3] ^= 0xff;
      return bytes;
    },
  };
  return { source, reads, corrupt };
}

const QUESTIONS = ['השתתפות עצמית בתאונה', 'flight delay refund', 'נזק מים בצנרת', 'dental crown implant premium'];

describe('an index read by need', () => {
  it('reads no fragment to open, then the term fragments of the question and the chunk fragments of its hits, and answers as the whole index does', async () => {
    const { source, reads } = countingSource();
    const byNeed = await IndexByNeed.open(source);
    expect(reads.filter((p) => p.startsWith('terms-') || p.startsWith('chunks-'))).toEqual([]);
    expect(byNeed.index.bm25.complete).toBe(false);
    expect(byNeed.complete).toBe(false);
    const whole = new Retriever(await readIndexFolder(out));
    const retriever = new Retriever(byNeed.index);
    for (const q of QUESTIONS) {
      const before = new Set(reads);
      const a = await retriever.searchByNeed(q, { mode: 'bm25', route: false, k: 3 }, byNeed);
      const b = whole.search(q, { mode: 'bm25', route: false, k: 3 });
      const { bm25 } = byNeed.index;
      const wanted = new Set([...retriever.lookupTerms(q).map((t) => `terms-${bm25.fragmentOf(t)}.bin.gz`), ...a.hits.map((h) => `chunks-${bm25.chunkFragmentOf(h.chunk)}.bin.gz`)]);
      // What this question read: fragments its terms and its hits are in, none it already had.
      const read = reads.filter((p) => !before.has(p));
      expect(
        read.every((p) => wanted.has(p)),
        `${q}: ${read}`,
      ).toBe(true);
      expect(a.hits.length, q).toBeGreaterThan(0);
      expect(a.hits, q).toEqual(b.hits);
      expect(a.termStats, q).toEqual(b.termStats);
      // The hits' sections, as an answer widens them, are there too.
      for (const h of a.hits) expect(retriever.expandToParent(h.chunk)).toEqual(whole.expandToParent(h.chunk));
    }
    expect(reads.some((p) => p.startsWith('chunks-'))).toBe(true);
    expect(byNeed.fetched.files).toBe(new Set(reads).size);
  });

  it('refuses a chunk fragment the BM25 base does not place there, even one its manifest vouches for', async () => {
    const { source } = countingSource();
    const moved: IndexFileSource = {
      // A manifest that lists fragments 0 and 1 the other way round, each with its file's size and hash.
      async read(path, signal) {
        const bytes = await source.read(path, signal);
        if (path !== 'manifest.json') return bytes;
        const manifest = JSON.parse(new TextDecoder().decode(bytes));
        [manifest.files['chunks-0'], manifest.files['chunks-1']] = [manifest.files['chunks-1'], manifest.files['chunks-0']];
        return new TextEncoder().encode(JSON.stringify(manifest));
      },
    };
    const byNeed = await IndexByNeed.open(moved);
    let error: unknown;
    await byNeed.ensureChunks([0]).catch((e: unknown) => (error = e));
    expect(isHarelError(error, 'INDEX_CORRUPT')).toBe(true);
    expect((error as Error).message).toMatch(/places fragment 0 at 0–9/);
  });

  it('refuses at open a manifest that lists fewer chunk fragments than the BM25 base places', async () => {
    const { source } = countingSource();
    const fewer: IndexFileSource = {
      async read(path, signal) {
        const bytes = await source.read(path, signal);
        if (path !== 'manifest.json') return bytes;
        const manifest = JSON.parse(new TextDecoder().decode(bytes));
        manifest.fragments.chunks = 3;
        return new TextEncoder().encode(JSON.stringify(manifest));
      },
    };
    await expect(IndexByNeed.open(fewer)).rejects.toThrowError(/names 8 term and 4 chunk fragments, the manifest 8 and 3/);
  });

  it('reads a fragment once however many searches ask for it at the same time', async () => {
    const { source, reads } = countingSource();
    const byNeed = await IndexByNeed.open(source);
    const terms = new Retriever(byNeed.index).lookupTerms(QUESTIONS[1]);
    await Promise.all([byNeed.ensureTerms(terms), byNeed.ensureTerms(terms), byNeed.ensureTerms(terms)]);
    const termReads = reads.filter((p) => p.startsWith('terms-'));
    expect(termReads.length).toBeGreaterThan(0);
    expect(termReads).toEqual([...new Set(termReads)]);
  });

  it('refuses a search whose fragments were not read, rather than answering it with nothing', async () => {
    const byNeed = await IndexByNeed.open(countingSource().source);
    const retriever = new Retriever(byNeed.index);
    let error: unknown;
    try {
      retriever.search(QUESTIONS[0], { mode: 'bm25', route: false });
    } catch (e) {
      error = e;
    }
    expect(isHarelError(error, 'INDEX_FRAGMENT_MISSING')).toBe(true);
  });

  it('refuses a corrupt fragment with INDEX_INTEGRITY, keeps answering from the others, and reads it again once it is fixed', async () => {
    const { source, corrupt } = countingSource();
    const byNeed = await IndexByNeed.open(source);
    const retriever = new Retriever(byNeed.index);
    const terms = retriever.lookupTerms(QUESTIONS[2]);
    const bad = `terms-${byNeed.index.bm25.fragmentOf(terms[0])}.bin.gz`;
    corrupt.add(bad);
    let error: unknown;
    await byNeed.ensureTerms(terms).catch((e: unknown) => (error = e));
    expect(isHarelError(error, 'INDEX_INTEGRITY')).toBe(true);
    expect((error as Error).message).toContain(bad);
    // A question whose words lie elsewhere is answered meanwhile.
    const other = QUESTIONS.find((q) => retriever.lookupTerms(q).every((t) => `terms-${byNeed.index.bm25.fragmentOf(t)}.bin.gz` !== bad));
    if (other) {
      expect((await retriever.searchByNeed(other, { mode: 'bm25', route: false }, byNeed)).hits.length).toBeGreaterThan(0);
    }
    corrupt.clear();
    expect((await retriever.searchByNeed(QUESTIONS[2], { mode: 'bm25', route: false }, byNeed)).hits.length).toBeGreaterThan(0);
  });

  it('fills every remaining fragment with progress, and is then the whole index', async () => {
    const byNeed = await IndexByNeed.open(countingSource().source);
    const steps: number[] = [];
    await byNeed.fill({ onProgress: (p) => steps.push(p.done) });
    // 8 term fragments and 4 chunk fragments (10 chunks each, whole documents of 5).
    expect(steps.at(-1)).toBe(12);
    expect(byNeed.complete).toBe(true);
    const whole = await readIndexFolder(out);
    expect(byNeed.index.bm25.terms).toBe(whole.bm25.terms);
    expect(byNeed.index.chunks).toEqual(whole.chunks);
    const controller = new AbortController();
    controller.abort();
    const fresh = await IndexByNeed.open(countingSource().source);
    await expect(fresh.fill({ signal: controller.signal })).rejects.toSatisfy((e) => isHarelError(e, 'ABORTED'));
  });
});
