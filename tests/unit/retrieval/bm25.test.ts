import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILDER_VERSION } from '../../../builder/version.ts';
import { aliasMap, runEval } from '../../../builder/eval/run-eval.ts';
import { DEFAULT_RETRIEVAL } from '../../../widget/core/format/manifest.ts';
import { buildBm25State, restoreBm25, searchBm25 } from '../../../widget/core/retrieval/bm25.ts';
import { bm25Tokenizer } from '../../../widget/core/retrieval/retriever.ts';
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

describe('BM25 bookkeeping', () => {
  it('counts document frequency per document, so a frequent, repeated term keeps a positive IDF', async () => {
    // Orama's stock bookkeeping counts 5 "occurrences" of רכב among 3 documents: a negative IDF.
    const db = await bm25For(['רכב רכב רכב רכב', 'רכב דירה', 'דירה']);
    const hits = searchBm25(db, 'רכב', { k: 3 });
    expect(hits.map((h) => h.chunk)).toEqual([0, 1]);
    expect(hits.every((h) => h.score > 0)).toBe(true);
  });

  it('ranks the passage where the query terms recur first', async () => {
    const long = `השתתפות עצמית ${'מילה '.repeat(10)}השתתפות עצמית השתתפות עצמית`;
    const db = await bm25For([long, `השתתפות ${'אחר '.repeat(3)}`, 'דירה']);
    expect(searchBm25(db, 'השתתפות עצמית', { k: 3 })[0].chunk).toBe(0);
  });

  it('ships no document text in its saved state', async () => {
    const documents = [doc('a.txt')];
    const state = await buildBm25State([chunk(0, 'טקסט סודי')], documents, bm25Tokenizer(DEFAULT_RETRIEVAL));
    expect(JSON.stringify((state as { docs: unknown }).docs)).not.toContain('סודי');
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

describe('shipping form of the BM25 state', () => {
  it('rebuilds exactly the per-document term counts Orama saved', async () => {
    const { create, insertMultiple, save } = await import('@orama/orama');
    const { compactFrequencies, expandFrequencies } = await import('../../../widget/core/retrieval/bm25-state.ts');
    const db = create({ schema: { body: 'string' } as const, components: { tokenizer: bm25Tokenizer(DEFAULT_RETRIEVAL) } });
    await insertMultiple(db, [{ body: 'רכב רכב דירה' }, { body: 'דירה ביטוח ביטוח ביטוח' }, { body: 'car cars car' }]);
    const original = JSON.parse(JSON.stringify(save(db)));
    const compact = JSON.parse(JSON.stringify(compactFrequencies(original)));
    expect(compact.index.frequencies).toEqual({});
    expect(expandFrequencies(compact).index).toEqual(original.index);
  });
});

describe('term lookup', () => {
  it('scores exactly as Orama\'s own search path does, with and without a domain filter', async () => {
    const { create, load, search } = await import('@orama/orama');
    const { expandFrequencies } = await import('../../../widget/core/retrieval/bm25-state.ts');
    const { BM25_SCHEMA } = await import('../../../widget/core/retrieval/bm25.ts');
    const texts = ['ביטוח רכב מקיף וביטוח חובה', 'השתתפות עצמית ברכב 1,200 ש"ח', 'ביטוח דירה מבנה ותכולה', 'travel insurance baggage lost', 'רכב חלופי לאחר תאונה'];
    const documents = texts.map((_, i) => doc(`f${i}.txt`, i % 2 ? 'car' : 'apartment'));
    const chunks = texts.map((t, i) => chunk(i, t));
    const tokenizer = bm25Tokenizer(DEFAULT_RETRIEVAL);
    const state = JSON.parse(JSON.stringify(await buildBm25State(chunks, documents, tokenizer)));
    const ours = restoreBm25(JSON.parse(JSON.stringify(state)), tokenizer);
    const stock = create({ schema: BM25_SCHEMA, components: { tokenizer } });
    load(stock, expandFrequencies(state));
    for (const domain of [null, 'car']) {
      for (const query of ['ביטוח הרכב שלי', 'baggage', 'השתתפות עצמית 1200']) {
        const mine = searchBm25(ours, query, { k: 10, domain });
        const theirs = search(stock, { term: query, properties: ['body', 'context'], boost: { context: 0.5 }, threshold: 1, limit: 10, ...(domain ? { where: { domain: { eq: domain } } } : {}) }) as { hits: { id: string; score: number }[] };
        expect(mine.map((h) => h.chunk)).toEqual(theirs.hits.map((h) => Number(h.id)));
        mine.forEach((h, i) => expect(h.score).toBeCloseTo(theirs.hits[i].score, 10));
        expect(mine.length).toBeGreaterThan(0);
      }
    }
  });
});
