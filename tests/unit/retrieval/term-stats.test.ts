import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Retriever } from '../../../widget/core/retrieval/retriever.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { tokenize } from '../../../widget/core/tokenizer/index.ts';
import { buildDemoIndex } from '../loop/helpers.ts';

let index: LoadedIndex;
let cleanup: () => Promise<void>;
beforeAll(async () => {
  ({ index, cleanup } = await buildDemoIndex());
});
afterAll(() => cleanup?.());

describe('term statistics of a search', () => {
  it('counts, for each query term, the chunks whose body holds it, and none for a word the index lacks', () => {
    const retriever = new Retriever(index);
    const { termStats } = retriever.search('השתתפות עצמית butterfly', { k: 5 });
    expect(termStats.chunks).toBe(index.chunks.length);
    for (const term of ['השתתפות', 'עצמית']) {
      const holding = index.chunks.filter((c) => tokenize(c.text).includes(term)).length;
      expect(holding, term).toBeGreaterThan(0);
      expect(termStats.df[term], term).toBe(holding);
    }
    expect(termStats.df[tokenize('butterfly')[0]]).toBe(0);
  });
});
