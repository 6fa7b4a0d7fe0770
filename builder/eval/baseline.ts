/**
 * Page-level BM25 baselines, for the figures the project is measured against: one Orama
 * document per page (the page text rebuilt from the index's chunks), searched with
 * - 'orama-default': Orama as it comes (its tokenizer drops Hebrew);
 * - 'project-stock-bm25': the project's tokenizer, Orama's stock BM25 bookkeeping;
 * - 'project': the project's tokenizer and the corrected BM25 bookkeeping, whole terms.
 */
import { create, insertMultiple, search, type Tokenizer } from '@orama/orama';
import type { LoadedIndex } from '../../widget/core/format/read-index.ts';
import { createOramaTokenizer } from './orama-tokenizer.ts';
import { createBm25IndexComponent } from './orama-bm25.ts';
import type { EvalSearchResult } from './run-eval.ts';

export type BaselineTokenizer = 'orama-default' | 'project-stock-bm25' | 'project';

export async function createPageBaseline(index: LoadedIndex, tokenizer: BaselineTokenizer): Promise<(query: string, k: number) => EvalSearchResult> {
  const pages = new Map<string, { file: string; page: number; parts: string[] }>();
  for (const chunk of index.chunks) {
    const file = index.documents[chunk.doc].file;
    const key = `${chunk.doc}:${chunk.page}`;
    const entry = pages.get(key) ?? { file, page: chunk.page, parts: [] };
    entry.parts.push(chunk.text);
    pages.set(key, entry);
  }
  const list = [...pages.values()];
  const components: { tokenizer?: Tokenizer; index?: ReturnType<typeof createBm25IndexComponent> } =
    tokenizer === 'orama-default'
      ? {}
      : tokenizer === 'project-stock-bm25'
        ? { tokenizer: createOramaTokenizer() }
        : { tokenizer: createOramaTokenizer({ wholeTerms: true }), index: createBm25IndexComponent() };
  const db = create({ schema: { text: 'string' } as const, components });
  await insertMultiple(
    db,
    list.map((p, i) => ({ id: String(i), text: p.parts.join('\n') })),
    500,
  );
  return (query, k) => {
    const result = search(db, { term: query, threshold: 1, limit: k });
    if (result instanceof Promise) throw new Error('unexpected async search');
    const hits = result.hits.map((h) => {
      const p = list[Number(h.id)];
      return { file: p.file, page: p.page, score: h.score, chunkId: `page:${h.id}` };
    });
    return { route: null, domainFilter: null, hits };
  };
}
