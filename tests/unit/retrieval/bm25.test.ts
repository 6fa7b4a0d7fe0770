import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILDER_VERSION } from '../../../builder/version.ts';
import { aliasMap, runEval } from '../../../builder/eval/run-eval.ts';
import { DEFAULT_RETRIEVAL } from '../../../widget/core/format/manifest.ts';
import { bm25Tokenizer, buildBm25State, restoreBm25, searchBm25 } from '../../../builder/eval/orama-bm25.ts';
import { compileBm25File } from '../../../widget/core/format/compile-bm25.ts';
import { Bm25Index } from '../../../widget/core/retrieval/bm25-index.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';

const doc = (file: string, domain = 'car'): IndexedDocument => ({ file, url: null, domain, lang: 'he', title: '', kind: 'txt', pageCount: 1 });
const chunk = (doc: number, text: string): Chunk => ({ id: `c${doc}`, doc, page: 1, sectionPath: [], clause: null, parentId: 'p', text, tokens: 1 });

async function bm25For(texts: string[]) {
  const documents = texts.map((_, i) => doc(`f${i}.txt`));
  const chunks = texts.map((t, i) => chunk(i, t));
  const tokenizer = bm25Tokenizer(DEFAULT_RETRIEVAL);
  const state = JSON.parse(JSON.stringify(await buildBm25State(chunks, documents, tokenizer)));
  return restoreBm25(state, tokenizer);
}

type Search = (query: string, k: number) => { chunk: number; score: number }[];
const implementations: [string, (texts: string[]) => Promise<Search>][] = [
  [
    'the reference (Orama)',
    async (texts) => {
      const db = await bm25For(texts);
      return (q, k) => searchBm25(db, q, { k });
    },
  ],
  [
    'format 2 postings',
    async (texts) => {
      const index = new Bm25Index(
        compileBm25File(
          texts.map((t, i) => chunk(i, t)),
          texts.map((_, i) => doc(`f${i}.txt`)),
        ),
      );
      return (q, k) => index.search(q, { k });
    },
  ],
];

describe.each(implementations)('BM25 bookkeeping: %s', (_, make) => {
  it('counts document frequency per document, so a frequent, repeated term keeps a positive IDF', async () => {
    // Orama's stock bookkeeping counts 5 "occurrences" of רכב among 3 documents: a negative IDF.
    const search = await make(['רכב רכב רכב רכב', 'רכב דירה', 'דירה']);
    const hits = search('רכב', 3);
    expect(hits.map((h) => h.chunk)).toEqual([0, 1]);
    expect(hits.every((h) => h.score > 0)).toBe(true);
  });

  it('ranks the passage where the query terms recur first', async () => {
    const long = `השתתפות עצמית ${'מילה '.repeat(10)}השתתפות עצמית השתתפות עצמית`;
    const search = await make([long, `השתתפות ${'אחר '.repeat(3)}`, 'דירה']);
    expect(search('השתתפות עצמית', 3)[0].chunk).toBe(0);
  });
});

describe('duplicate files in evaluation', () => {
  it('credits a citation of a dropped duplicate to the file that holds its text', async () => {
    const aliases = aliasMap([{ ...doc('kept.pdf'), aliases: ['copy.pdf'] }]);
    const report = await runEval(
      [{ id: 'q', question: 'x', domain: 'car', difficulty: null, kind: null, answerable: true, facts: [[{ file: 'copy.pdf', page: 2 }]], answers: [] }],
      async () => ({ route: null, domainFilter: null, hits: [{ file: 'kept.pdf', page: 2, score: 1, chunkId: 'c' }] }),
      { k: 10, mode: 'bm25', aliases },
    );
    expect(report.page['hit@1']).toBe(1);
  });
});

describe('versions', () => {
  it('writes the package version into manifests', () => {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(BUILDER_VERSION).toBe(pkg.version);
  });
});

describe('term lookup', () => {
  it("scores exactly as Orama's own search path does, with and without a domain filter", async () => {
    const { create, load, search } = await import('@orama/orama');
    const { BM25_SCHEMA } = await import('../../../builder/eval/orama-bm25.ts');
    const texts = ['ביטוח רכב מקיף וביטוח חובה', 'השתתפות עצמית ברכב 1,200 ש"ח', 'ביטוח דירה מבנה ותכולה', 'travel insurance baggage lost', 'רכב חלופי לאחר תאונה'];
    const documents = texts.map((_, i) => doc(`f${i}.txt`, i % 2 ? 'car' : 'apartment'));
    const chunks = texts.map((t, i) => chunk(i, t));
    const tokenizer = bm25Tokenizer(DEFAULT_RETRIEVAL);
    const state = JSON.parse(JSON.stringify(await buildBm25State(chunks, documents, tokenizer)));
    const ours = restoreBm25(JSON.parse(JSON.stringify(state)), tokenizer);
    const stock = create({ schema: BM25_SCHEMA, components: { tokenizer } });
    load(stock, state);
    for (const domain of [null, 'car']) {
      for (const query of ['ביטוח הרכב שלי', 'baggage', 'השתתפות עצמית 1200']) {
        const mine = searchBm25(ours, query, { k: 10, domain });
        const theirs = search(stock, { term: query, properties: ['body', 'context'], boost: { context: 0.5 }, threshold: 1, limit: 10, ...(domain ? { where: { domain: { eq: domain } } } : {}) }) as {
          hits: { id: string; score: number }[];
        };
        expect(mine.map((h) => h.chunk)).toEqual(theirs.hits.map((h) => Number(h.id)));
        mine.forEach((h, i) => expect(h.score).toBeCloseTo(theirs.hits[i].score, 10));
        expect(mine.length).toBeGreaterThan(0);
      }
    }
  });
});
