import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRIEVAL } from '../../../widget/core/format/manifest.ts';
import { compileBm25File } from '../../../widget/core/format/compile-bm25.ts';
import { expandQuery, QueryExpander } from '../../../widget/core/retrieval/expand.ts';
import { Retriever } from '../../../widget/core/retrieval/retriever.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import type { Chunk, IndexedDocument } from '../../../widget/core/schema.ts';
import { inMemoryRetriever } from './in-memory-retriever.ts';

describe('expandQuery', () => {
  it('adds the equivalents of a phrase found in the question, prefixes and all', () => {
    const { expansions } = expandQuery('האם יש כיסוי לטוטאל לוס ברכב?');
    const total = expansions.find((e) => e.matched === 'טוטאל לוס');
    expect(total?.added).toEqual(['אובדן גמור', 'total loss']);
  });

  it("meets a lexicon word whose prefixed form leaves two letters (בצד → צד ג'), and searches the phrase itself", () => {
    const third = expandQuery("האם יש כיסוי בצד ג'?").expansions.find((e) => e.source === 'curated' && e.matched === "צד ג'");
    expect(third?.added).toEqual(["צד ג'", 'צד שלישי', 'third party']);
    expect(expandQuery('מה עם הצדדים?').expansions.some((e) => e.matched === "צד ג'")).toBe(false);
  });

  it('keeps mined equivalents apart from curated ones', () => {
    const expander = new QueryExpander([], { version: 1, entries: [{ phrases: ['CANCER', 'סרטן'], kind: 'translation', docs: 1 }] });
    const out = expander.expand('גילו לי סרטן');
    expect(out.minedTerms).toBe('CANCER');
    expect(out.terms).toBe('');
    expect(out.expansions).toEqual([{ matched: 'סרטן', added: ['CANCER'], source: 'mined' }]);
  });

  it('adds nothing for a question without lexicon phrases', () => {
    expect(expandQuery('מה שעות הפעילות?').expansions).toEqual([]);
  });
});

describe('expansion in retrieval', () => {
  it('finds a passage that only matches the question through a synonym, and says why', async () => {
    const documents: IndexedDocument[] = [
      { file: 'car/policy.pdf', url: null, domain: 'car', lang: 'he', title: 'פוליסה', kind: 'pdf', pageCount: 1 },
      { file: 'car/faq.txt', url: null, domain: 'car', lang: 'he', title: 'שאלות', kind: 'txt', pageCount: 1 },
    ];
    const chunks: Chunk[] = [
      { id: 'a', doc: 0, page: 1, sectionPath: [], clause: '7', parentId: 'p', text: 'במקרה של אובדן גמור ישולם שווי הרכב לפי המחירון.', tokens: 9 },
      { id: 'b', doc: 1, page: 1, sectionPath: [], clause: null, parentId: 'q', text: 'שעות הפעילות של המוקד הן בימים א-ה.', tokens: 8 },
    ];
    const retriever = await inMemoryRetriever(documents, chunks);
    const withExpansion = retriever.search('טוטאל לוס', { mode: 'bm25', k: 2 });
    expect(withExpansion.hits[0]?.chunkId).toBe('a');
    expect(withExpansion.expansions[0].matched).toBe('טוטאל לוס');
    expect(retriever.search('טוטאל לוס', { mode: 'bm25', k: 2, expansionWeight: 0 }).hits).toEqual([]);
  });

  it("finds a passage only through the index's mined lexicon, at the mined weight", async () => {
    const documents: IndexedDocument[] = [
      { file: 'health/en.pdf', url: null, domain: 'health', lang: 'en', title: 'policy', kind: 'pdf', pageCount: 1 },
      { file: 'health/he.pdf', url: null, domain: 'health', lang: 'he', title: 'פוליסה', kind: 'pdf', pageCount: 1 },
    ];
    const chunks: Chunk[] = [
      { id: 'en', doc: 0, page: 1, sectionPath: [], clause: '1.3.1', parentId: 'p', text: 'Cancer: the presence of a malignant tumour.', tokens: 8 },
      { id: 'he', doc: 1, page: 1, sectionPath: [], clause: null, parentId: 'q', text: 'שעות הפעילות של המוקד.', tokens: 4 },
    ];
    const retrieval = { ...DEFAULT_RETRIEVAL };
    const base = { manifest: { retrieval } as LoadedIndex['manifest'], documents, chunks, bm25: compileBm25File(chunks, documents), vectors: null, router: null };
    const mined = new Retriever({ ...base, lexicon: { version: 1, entries: [{ phrases: ['CANCER', 'סרטן'], kind: 'translation', docs: 1 }] } });
    const found = mined.search('סרטן', { mode: 'bm25', k: 2 });
    expect(found.hits.map((h) => h.chunkId)).toEqual(['en']);
    expect(found.expansions).toEqual([{ matched: 'סרטן', added: ['CANCER'], source: 'mined' }]);
    expect(mined.search('סרטן', { mode: 'bm25', k: 2, minedExpansionWeight: 0 }).hits).toEqual([]);
    expect(new Retriever(base).search('סרטן', { mode: 'bm25', k: 2 }).hits).toEqual([]);
  });
});
