/** A real index of the demo corpus (BM25 only) behind the in-thread search service, built once per file. */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildIndex } from '../../../builder/pipeline/build-index.ts';
import { readIndexFolder } from '../../../builder/read-index-folder.ts';
import { writeDemoPdf } from '../../../tools/demo-pdf.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { LocalSearchService } from '../../../widget/search/local-search-service.ts';
import type { ContextPassage } from '../../../widget/search/search-service.ts';
import type { GradedPassage } from '../../../widget/engines/engine.ts';

export const DEMO_CORPUS = fileURLToPath(new URL('../../../demo/corpus/', import.meta.url));

/**
 * The demo corpus's index. `withPdf`: with its English policy PDF written in, as `npm run demo`
 * does (the corpus is copied first, since the PDF is generated, not committed).
 */
export async function buildDemoIndex(options: { withPdf?: boolean } = {}): Promise<{ index: LoadedIndex; search: LocalSearchService; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'harel-loop-'));
  const out = join(dir, 'index');
  let corpus = DEMO_CORPUS;
  if (options.withPdf) {
    corpus = join(dir, 'corpus');
    await cp(DEMO_CORPUS, corpus, { recursive: true });
    await writeDemoPdf(join(corpus, 'apartment/files/demo-home-policy.pdf'));
  }
  await buildIndex({
    inputs: [corpus],
    outDir: out,
    embed: false,
    embedder: 'none',
    allowRemote: false,
    dtype: 'q8',
    maxTokens: 350,
    overlap: 0.15,
  });
  const index = await readIndexFolder(out);
  return { index, search: LocalSearchService.fromIndex(index), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** A hand-made passage for step tests that need no index. */
export function passage(text: string, extra: Partial<GradedPassage> = {}): GradedPassage {
  const base: ContextPassage = {
    chunk: 0,
    score: 1,
    bm25: 1,
    vector: null,
    rank: 1,
    chunkId: `c-${text.length}`,
    file: 'car/policy.pdf',
    page: 3,
    title: 'פוליסת רכב',
    url: 'https://example.test/car.pdf',
    domain: 'car',
    sectionPath: ['השתתפות עצמית'],
    clause: '4.1',
    text,
    twin: null,
    pageTwin: null,
    alsoIn: [],
    editions: [],
    context: text,
  };
  return { ...base, n: 1, relevance: 1, ...extra };
}
