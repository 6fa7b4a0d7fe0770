/**
 * The first stage fetches a fixed pool whatever k is, and search returns one result per section
 * of a page: asking for 10 or 30 results ranks the first 10 identically.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../../builder/pipeline/build-index.ts';
import { readIndexFolder } from '../../../builder/read-index-folder.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { FIRST_STAGE_POOL, Retriever } from '../../../widget/core/retrieval/retriever.ts';
import { groupByPage, groupBySection, placesOf } from '../../../widget/core/retrieval/page-groups.ts';
import { buildDemoIndex } from '../loop/helpers.ts';

function expectKInvariant(retriever: Retriever, questions: readonly string[]): void {
  const section = new Map(retriever.index.chunks.map((c) => [c.id, `${c.doc}#${c.page}#${c.parentId}`]));
  for (const q of questions) {
    const ten = retriever.search(q, { k: 10 }).hits;
    const thirty = retriever.search(q, { k: 30 }).hits;
    expect(ten.length, q).toBeGreaterThan(0);
    expect(
      ten.map((h) => h.chunkId),
      q,
    ).toEqual(thirty.slice(0, ten.length).map((h) => h.chunkId));
    // One result per section of a page: a second chunk of a section would repeat its widened context.
    const sections = thirty.map((h) => section.get(h.chunkId));
    expect(new Set(sections).size, q).toBe(sections.length);
    expect(thirty.map((h) => h.rank)).toEqual(thirty.map((_, i) => i + 1));
  }
}

describe('a pool independent of k (demo index)', () => {
  let index: LoadedIndex;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ index, cleanup } = await buildDemoIndex());
  });
  afterAll(() => cleanup?.());

  it('ranks the first ten results the same for k 10 and k 30, one per section of a page', () => {
    const questions = (JSON.parse(readFileSync(new URL('../../../demo/questions.json', import.meta.url), 'utf8')) as { question: string }[]).map((q) => q.question);
    expectKInvariant(new Retriever(index), questions);
  });

  it('groups chunks by page in the order of each page’s best chunk', () => {
    const chunks = index.chunks;
    // Two chunks of one page around a chunk of another page.
    const a = chunks.findIndex((c, i) => chunks.some((d, j) => j !== i && d.doc === c.doc && d.page === c.page));
    const b = chunks.findIndex((c, i) => i !== a && c.doc === chunks[a].doc && c.page === chunks[a].page);
    const other = chunks.findIndex((c) => c.doc !== chunks[a].doc || c.page !== chunks[a].page);
    const pages = groupByPage(
      [
        { chunk: a, score: 3 },
        { chunk: other, score: 2 },
        { chunk: b, score: 1 },
      ],
      placesOf(chunks),
    );
    expect(pages.map((p) => p.chunks)).toEqual([[a, b], [other]]);
    expect(pages[0].scores).toEqual([3, 1]);
    // By section, the two chunks of one page stay apart when their sections differ.
    const sameSection = chunks[a].parentId === chunks[b].parentId;
    expect(
      groupBySection(
        [
          { chunk: a, score: 3 },
          { chunk: other, score: 2 },
          { chunk: b, score: 1 },
        ],
        placesOf(chunks),
      ).length,
    ).toBe(sameSection ? 2 : 3);
  });
});

const DATA = fileURLToPath(new URL('../../../../shared/data/harel/', import.meta.url));
const present = existsSync(join(DATA, 'corpus/car')) && existsSync(join(DATA, 'questions/dev-v2.json'));
if (!present) console.warn(`pool real-corpus test skipped: ${DATA} is absent (the shared data sits beside the repo).`);

describe.skipIf(!present)('a pool independent of k (Harel car documents, dev-v2 car questions)', () => {
  let dir = '';
  let index: LoadedIndex;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'harel-pool-'));
    await buildIndex({ inputs: [join(DATA, 'corpus/car')], outDir: join(dir, 'index'), embed: false, embedder: 'none', allowRemote: false, dtype: 'q8', maxTokens: 350, overlap: 0.15 });
    index = await readIndexFolder(join(dir, 'index'));
  }, 120_000);
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it(`fetches ${FIRST_STAGE_POOL} candidates whatever k, so k 10 and k 30 agree on every question`, () => {
    const questions = (JSON.parse(readFileSync(join(DATA, 'questions/dev-v2.json'), 'utf8')) as { domain: string; question: string }[]).filter((q) => q.domain === 'car').map((q) => q.question);
    expect(questions.length).toBeGreaterThan(5);
    expectKInvariant(new Retriever(index), questions);
  });
});
