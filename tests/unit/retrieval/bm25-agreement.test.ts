/**
 * The agreement test of index format 2 on the real corpus: for every dev-v2 question, the
 * shipped BM25 (compiled postings, pruned top-k scoring) returns the reference BM25's (Orama's)
 * first-stage pool exactly: same chunks, same order, same scores, over the whole index and
 * within the question's routed domain, for the question and for its expansion terms. Skips
 * when ../shared/data is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildIndex } from '../../../builder/pipeline/build-index.ts';
import { bm25Tokenizer, buildBm25State, restoreBm25, searchBm25, type Bm25Database } from '../../../builder/eval/orama-bm25.ts';
import { readIndexFolder } from '../../../builder/read-index-folder.ts';
import { DEFAULT_RETRIEVAL } from '../../../widget/core/format/manifest.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { Bm25Index } from '../../../widget/core/retrieval/bm25-index.ts';
import { QueryExpander } from '../../../widget/core/retrieval/expand.ts';
import { LEXICON } from '../../../widget/core/retrieval/lexicon.ts';
import { FIRST_STAGE_POOL, Retriever } from '../../../widget/core/retrieval/retriever.ts';

const DATA = fileURLToPath(new URL('../../../../shared/data/harel/', import.meta.url));
const present = existsSync(join(DATA, 'corpus')) && existsSync(join(DATA, 'questions/dev-v2.json'));
if (!present) console.warn(`BM25 agreement test skipped: ${DATA} is absent (the shared data sits beside the repo).`);

describe.skipIf(!present)('format 2 BM25 agrees with the reference on the Harel corpus (dev-v2)', () => {
  let dir = '';
  let index: LoadedIndex;
  let reference: Bm25Database;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'harel-bm25-agreement-'));
    await buildIndex({ inputs: [join(DATA, 'corpus')], outDir: join(dir, 'index'), embed: false, embedder: 'none', allowRemote: false, dtype: 'q8', maxTokens: 350, overlap: 0.15 });
    index = await readIndexFolder(join(dir, 'index'));
    const tokenizer = bm25Tokenizer(DEFAULT_RETRIEVAL);
    reference = restoreBm25(await buildBm25State(index.chunks, index.documents, tokenizer), tokenizer);
  }, 300_000);
  afterAll(() => (dir ? rm(dir, { recursive: true, force: true }) : undefined));

  it('returns the same first-stage pool for every question, its routed domain and its expansions', () => {
    const questions = (JSON.parse(readFileSync(join(DATA, 'questions/dev-v2.json'), 'utf8')) as { question: string }[]).map((q) => q.question);
    const postings = new Bm25Index(index.bm25);
    const retriever = new Retriever(index);
    const expander = new QueryExpander(LEXICON, index.lexicon ?? null);
    const contextBoost = index.manifest.retrieval.contextBoost;
    let compared = 0;
    for (const q of questions) {
      const routed = retriever.route(q)?.domain ?? null;
      const expansion = expander.expand(q);
      for (const text of [q, expansion.terms, expansion.minedTerms].filter((t): t is string => Boolean(t))) {
        for (const domain of [null, routed]) {
          const options = { k: FIRST_STAGE_POOL, domain, contextBoost };
          const theirs = searchBm25(reference, text, options);
          expect(postings.search(text, options), `${text} / ${domain}`).toEqual(theirs);
          compared += theirs.length;
        }
      }
    }
    expect(questions.length).toBe(121);
    expect(compared).toBeGreaterThan(121 * 2 * 100);
  });
});
