/**
 * Measures whether E5 ranks better when the question is embedded without its function words
 * (the tokenizer's Hebrew and English stopwords dropped, the words kept as typed): dev-v2's
 * questions are conversational ("קניתי…", "תשמע…"), and E5 reads every word. Nothing is fitted,
 * so every figure is one choice measured on the whole set; the search's own text is unchanged.
 * Result (2026-11-26): not kept (docs/benchmarks.md, "Hybrid search, fitted").
 *
 *   npx tsx experiments/compare-query-text.ts .tmp/harel-e5-q4f32 ../shared/data/harel/questions/dev-v2.json
 *   npx tsx experiments/compare-query-text.ts .tmp/heq-e5-q4f32 ../shared/data/heq/heq_v1.1_val.json --no-route
 */
import { parseArgs } from 'node:util';
import { rankedPages, Retriever } from '../widget/core/retrieval/retriever.ts';
import { readIndexFolder } from '../builder/read-index-folder.ts';
import { queryVectors } from '../builder/eval/fit/query-vectors.ts';
import { queryText, QUERY_TEXTS } from '../builder/eval/fit/query-text.ts';
import { lenientPageRank, pageRank } from '../builder/eval/metrics.ts';
import { loadQuestions } from '../builder/eval/questions.ts';
import { aliasMap, twinLookup } from '../builder/eval/run-eval.ts';

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { 'no-route': { type: 'boolean', default: false }, 'model-dir': { type: 'string', default: 'models' }, 'query-cache': { type: 'string', default: '.tmp/fit-fusion-queries.json' } },
});
const [indexDir, questionsFile] = positionals;
if (!indexDir || !questionsFile) {
  process.stderr.write('usage: npx tsx experiments/compare-query-text.ts <index with vectors> <questions.json> [--no-route] [--model-dir models] [--query-cache file]\n');
  process.exit(2);
}

const index = await readIndexFolder(indexDir);
const questions = (await loadQuestions(questionsFile)).filter((q) => q.answerable);
const variants = QUERY_TEXTS.map((kind) => [kind, queryText(kind)] as const);
const vectors = await queryVectors(
  index,
  questions.flatMap((q) => variants.map(([, text]) => text(q.question))),
  values['model-dir'],
  values['query-cache'],
);
const retriever = new Retriever(index);
const aliases = aliasMap(index.documents);
const twins = twinLookup(index.documents, index.chunks);
const pct = (n: number) => `${((100 * n) / questions.length).toFixed(1)} %`;
for (const [name, text] of variants) {
  for (const mode of ['vector', 'hybrid'] as const) {
    const hits = { h5: 0, h10: 0, twins5: 0 };
    for (const q of questions) {
      const result = retriever.search(q.question, { k: 30, mode, route: !values['no-route'], queryVector: vectors.get(text(q.question)) ?? null });
      const ranked = rankedPages(result.hits).slice(0, 30);
      const fact = (q.facts[0] ?? []).map((ref) => ({ ...ref, file: aliases.get(ref.file) ?? ref.file }));
      const strict = pageRank(fact, ranked);
      const lenient = lenientPageRank(fact, ranked, twins);
      if (strict !== null && strict <= 5) hits.h5++;
      if (strict !== null && strict <= 10) hits.h10++;
      if (lenient !== null && lenient <= 5) hits.twins5++;
    }
    console.log(`${name.padEnd(24)} ${mode.padEnd(7)} page hit@5 ${pct(hits.h5)}, hit@10 ${pct(hits.h10)}, hit@5 counting twins ${pct(hits.twins5)} (${questions.length} answerable)`);
  }
}
