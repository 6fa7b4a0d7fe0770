/**
 * Fits a page reranker (features in page-features.ts) on development data, with
 * cross-validation, and reports what it would change, for both first stages a device may run:
 * BM25 alone (no model: lexical features only) and hybrid (E5's similarity and each side's page
 * rank added). Data (read from ../shared/data, never copied): dev-v2 and dev-v3 over the Harel
 * index (fitted on), and HeQ validation over its own index (never fitted on: a check that a
 * reranker fitted on insurance questions does not lose general-knowledge paragraphs). Each
 * question's first-stage pool is grouped by page and the first RERANK_PAGES pages get their
 * features; a page is positive when it establishes any of the question's facts. Folds split by
 * question; every figure under "held-out" ranks a question with a model fitted on the other folds
 * only. The ablation refits the folds without one feature group at a time. Nothing is written:
 * search ranks pages by the first stage until a model here wins on held-out folds
 * (docs/benchmarks.md, "Ranking pages").
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  candidateFeatures,
  chunksByPage,
  PAGE_FEATURE_GROUPS,
  PAGE_FEATURES,
  pageRanks,
  pageScore,
  RERANK_PAGES,
  type PageFeature,
  type PageFeatureGroup,
  type PageRerankModel,
  type RerankContext,
  type SemanticEvidence,
} from './page-features.ts';
import { queryVectors } from '../builder/eval/fit/query-vectors.ts';
import { dequantizeDot } from '../widget/core/format/int8.ts';
import { Retriever } from '../widget/core/retrieval/retriever.ts';
import { wordIdf } from '../widget/loop/evidence.ts';
import { contentWords } from '../widget/text/terms.ts';
import type { LoadedIndex } from '../widget/core/format/read-index.ts';
import { readIndexFolder } from '../builder/read-index-folder.ts';
import { assignFolds } from '../builder/eval/fit/folds.ts';
import { fitLogistic } from '../builder/eval/fit/logistic.ts';
import { lenientPageRank, pageRank, type RankedPage, type TwinLookup } from '../builder/eval/metrics.ts';
import { loadQuestions, type EvalQuestion, type SourceRef } from '../builder/eval/questions.ts';
import { aliasMap, twinLookup } from '../builder/eval/run-eval.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DATA = join(ROOT, '../shared/data');

const USAGE = `Usage: npx tsx experiments/fit-page-rerank.ts [options]
  --harel <dir>        the Harel index, with vectors for the hybrid rows (default .tmp/harel-e5)
  --heq <dir>          HeQ validation's index (default .tmp/heq-e5)
  --model-dir <dir>    the E5 that embeds the questions (default models)
  --query-cache <file> questions' vectors, reused between runs (default .tmp/fit-fusion-queries.json)
  --folds <n>          cross-validation folds (default 5)
  --l2 <a,b,…>         L2 penalties to report; the first one drives the ablation (default 1)`;

/** One question's candidates: features of its first pages, their labels, and every page in first-stage order. */
interface QuestionPool {
  set: string;
  id: string;
  features: number[][];
  positive: boolean[];
  pages: RankedPage[];
  /** The first fact (what the metrics score) and every fact (what the labels use), aliases resolved. */
  fact: SourceRef[];
  twins: TwinLookup;
}

function canonical(q: EvalQuestion, aliases: ReadonlyMap<string, string>): SourceRef[][] {
  return q.facts.map((f) => f.map((r) => ({ ...r, file: aliases.get(r.file) ?? r.file })));
}

/** How the first stage ranks: BM25 alone (devices without the model), or hybrid with E5's evidence. */
type StageMode = 'bm25' | 'hybrid';

function collect(set: string, index: LoadedIndex, questions: readonly EvalQuestion[], route: boolean, vectors: ReadonlyMap<string, Float32Array> | null): QuestionPool[] {
  const retriever = new Retriever(index);
  const aliases = aliasMap(index.documents);
  const twins = twinLookup(index.documents, index.chunks);
  const pageChunks = vectors ? chunksByPage(index.chunks) : null;
  const out: QuestionPool[] = [];
  for (const q of questions) {
    if (!q.answerable) continue;
    const facts = canonical(q, aliases);
    const queryVector = vectors?.get(q.question) ?? null;
    const options = { route, queryVector, mode: queryVector ? ('hybrid' as const) : ('bm25' as const) };
    const { pages, route: routed, termStats } = retriever.pageCandidates(q.question, options);
    const words = contentWords(q.question);
    let semantic: SemanticEvidence | null = null;
    if (queryVector && index.vectors && pageChunks) {
      const table = index.vectors;
      const cosine = new Float32Array(table.count);
      for (let i = 0; i < table.count; i++) cosine[i] = dequantizeDot(queryVector, table.data, i * table.dim, table.dim, table.scales[i]);
      const sides = retriever.candidates(q.question, options);
      semantic = { cosine, pageChunks, bm25Pages: pageRanks(sides.bm25, index.chunks), vectorPages: pageRanks(sides.vector, index.chunks) };
    }
    const context: RerankContext = { chunks: index.chunks, documents: index.documents, words, idf: wordIdf(words, termStats).idf, route: routed, semantic };
    const ranked = pages.map((p) => ({ file: index.documents[p.doc].file, page: p.page }));
    const features = candidateFeatures(pages, context);
    const positive = features.map((_, i) => facts.some((f) => pageRank(f, [ranked[i]]) !== null));
    out.push({ set, id: q.id, features, positive, pages: ranked, fact: facts[0] ?? [], twins });
  }
  return out;
}

function model(features: readonly PageFeature[], fitted: { mean: number[]; scale: number[]; weights: number[] }): PageRerankModel {
  return { version: 1, features, mean: fitted.mean, scale: fitted.scale, weights: fitted.weights };
}

/** Fits on `pools` with the given features; each question weighs the same, its positives half of it. */
function fit(pools: readonly QuestionPool[], features: readonly PageFeature[], l2: number): PageRerankModel {
  const columns = features.map((f) => PAGE_FEATURES.indexOf(f));
  const x: number[][] = [];
  const y: number[] = [];
  const w: number[] = [];
  for (const p of pools) {
    const pos = p.positive.filter(Boolean).length;
    const neg = p.positive.length - pos;
    if (pos === 0 || neg === 0) continue;
    p.features.forEach((row, i) => {
      x.push(columns.map((j) => row[j]));
      y.push(p.positive[i] ? 1 : 0);
      w.push(p.positive[i] ? 0.5 / pos : 0.5 / neg);
    });
  }
  return model(features, fitLogistic(x, y, w, { l2 }));
}

/** The pool's pages in the order `m` gives them (null: the first stage's). */
function reorder(p: QuestionPool, m: PageRerankModel | null): RankedPage[] {
  if (!m) return p.pages;
  const head = p.features.map((f, i) => ({ i, s: pageScore(m, f) })).sort((a, b) => b.s - a.s || a.i - b.i);
  return [...head.map((h) => p.pages[h.i]), ...p.pages.slice(p.features.length)];
}

interface Figures {
  n: number;
  strict: Record<string, number>;
  twins: Record<string, number>;
}

function figures(ranks: readonly { strict: number | null; twins: number | null }[]): Figures {
  const at = (key: 'strict' | 'twins') => {
    const r = ranks.map((x) => x[key]);
    const hit = (k: number) => r.filter((x) => x !== null && x <= k).length / (r.length || 1);
    return { 'hit@1': hit(1), 'hit@5': hit(5), 'hit@10': hit(10), 'hit@30': hit(30), mrr: r.reduce<number>((s, x) => s + (x ? 1 / x : 0), 0) / (r.length || 1) };
  };
  return { n: ranks.length, strict: at('strict'), twins: at('twins') };
}

function rank(p: QuestionPool, m: PageRerankModel | null): { strict: number | null; twins: number | null } {
  const ranked = reorder(p, m);
  return { strict: pageRank(p.fact, ranked), twins: lenientPageRank(p.fact, ranked, p.twins) };
}

/** Held-out ranks of every question: each ranked by the model fitted without its fold. */
function crossValidate(pools: readonly QuestionPool[], folds: readonly number[], k: number, features: readonly PageFeature[], l2: number) {
  const ranks = new Array<{ strict: number | null; twins: number | null }>(pools.length);
  const perFold: Figures[] = [];
  for (let f = 0; f < k; f++) {
    const m = fit(
      pools.filter((_, i) => folds[i] !== f),
      features,
      l2,
    );
    const held = pools.map((_, i) => i).filter((i) => folds[i] === f);
    for (const i of held) ranks[i] = rank(pools[i], m);
    perFold.push(figures(held.filter((i) => pools[i].set === 'dev-v2').map((i) => ranks[i])));
  }
  return { ranks, perFold };
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
function line(label: string, f: Figures): string {
  const s = f.strict;
  const t = f.twins;
  return `${label.padEnd(44)} ${String(f.n).padStart(4)} | ${pct(s['hit@1'])} ${pct(s['hit@5'])} ${pct(s['hit@10'])} ${pct(s['hit@30'])} ${s.mrr.toFixed(3)} | ${pct(t['hit@1'])} ${pct(t['hit@5'])} ${pct(t['hit@10'])} ${pct(t['hit@30'])} ${t.mrr.toFixed(3)}`;
}
const HEADER = `${'ranking'.padEnd(44)}    n | strict: hit@1 hit@5 hit@10 hit@30 MRR | twins count: hit@1 hit@5 hit@10 hit@30 MRR`;

function bySet(pools: readonly QuestionPool[], ranks: readonly { strict: number | null; twins: number | null }[], set: string): Figures {
  return figures(
    pools
      .map((p, i) => ({ p, r: ranks[i] }))
      .filter(({ p }) => p.set === set)
      .map(({ r }) => r),
  );
}

/** The features without E5's groups: the model a device without vectors would use. */
const LEXICAL_FEATURES = PAGE_FEATURES.filter((f) => !([...PAGE_FEATURE_GROUPS.semantic, ...PAGE_FEATURE_GROUPS.agreement] as readonly string[]).includes(f));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      harel: { type: 'string', default: '.tmp/harel-e5' },
      heq: { type: 'string', default: '.tmp/heq-e5' },
      'model-dir': { type: 'string', default: 'models' },
      'query-cache': { type: 'string', default: '.tmp/fit-fusion-queries.json' },
      folds: { type: 'string', default: '5' },
      l2: { type: 'string', default: '1' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (!existsSync(DATA)) throw new Error(`${DATA} is absent: the fitting data sits beside the repository.`);
  for (const dir of [values.harel, values.heq]) {
    if (!existsSync(join(dir!, 'manifest.json'))) throw new Error(`${dir} is not an index: build it first (docs/benchmarks.md, "Hybrid search, fitted").`);
  }
  const k = Number(values.folds);
  const l2s = values.l2!.split(',').map(Number);
  const harel = await readIndexFolder(values.harel!);
  const heqIndex = await readIndexFolder(values.heq!);
  const dev = {
    'dev-v2': await loadQuestions(join(DATA, 'harel/questions/dev-v2.json')),
    'dev-v3': await loadQuestions(join(DATA, 'harel/questions/dev-v3.json')),
  };
  const heqQuestions = await loadQuestions(join(DATA, 'heq/heq_v1.1_val.json'));
  const vectorsOf = async (index: LoadedIndex, questions: readonly EvalQuestion[]) =>
    index.vectors
      ? queryVectors(
          index,
          questions.map((q) => q.question),
          values['model-dir']!,
          values['query-cache']!,
        )
      : null;
  const harelVectors = await vectorsOf(harel, [...dev['dev-v2'], ...dev['dev-v3']]);
  const heqVectors = await vectorsOf(heqIndex, heqQuestions);
  const modes: StageMode[] = harelVectors ? ['bm25', 'hybrid'] : ['bm25'];

  for (const mode of modes) {
    const vectors = mode === 'hybrid' ? harelVectors : null;
    const pools = [...collect('dev-v2', harel, dev['dev-v2'], true, vectors), ...collect('dev-v3', harel, dev['dev-v3'], true, vectors)];
    const heq = collect('heq', heqIndex, heqQuestions, false, mode === 'hybrid' ? heqVectors : null);
    const folds = assignFolds(
      pools.map((p) => `${p.set}/${p.id}`),
      k,
      7,
    );
    const features = mode === 'hybrid' ? PAGE_FEATURES : LEXICAL_FEATURES;
    const withPositive = pools.filter((p) => p.positive.some(Boolean)).length;
    console.log(`\n=== first stage: ${mode}; ${pools.length} answerable questions (${withPositive} with a gold page among their first ${RERANK_PAGES} pages); ${k} folds`);
    for (const l2 of l2s) {
      const runs = [{ name: 'lexical features', features: LEXICAL_FEATURES }, ...(mode === 'hybrid' ? [{ name: 'all features', features: PAGE_FEATURES }] : [])].map((r) => ({
        ...r,
        cv: crossValidate(pools, folds, k, r.features, l2),
      }));
      for (const set of ['dev-v2', 'dev-v3']) {
        console.log(`\n${set}, held-out, L2 ${l2}\n${HEADER}`);
        console.log(
          line(
            `${mode} first stage (one result per page)`,
            bySet(
              pools,
              pools.map((p) => rank(p, null)),
              set,
            ),
          ),
        );
        for (const r of runs) console.log(line(`+ page reranker, ${r.name}`, bySet(pools, r.cv.ranks, set)));
      }
      const last = runs[runs.length - 1];
      console.log(`\ndev-v2 by fold, ${last.name} (held-out)\n${HEADER}`);
      last.cv.perFold.forEach((f, i) => console.log(line(`fold ${i + 1}`, f)));
    }
    const l2 = l2s[0];
    console.log(`\nablation (${mode}, L2 ${l2}), dev-v2 and dev-v3 together, held-out: the reranker without one feature group\n${HEADER}`);
    console.log(line('first stage', figures(pools.map((p) => rank(p, null)))));
    console.log(line('all its features', figures(crossValidate(pools, folds, k, features, l2).ranks)));
    for (const group of Object.keys(PAGE_FEATURE_GROUPS) as PageFeatureGroup[]) {
      const without = features.filter((f) => !(PAGE_FEATURE_GROUPS[group] as readonly string[]).includes(f));
      if (without.length === features.length) continue;
      console.log(line(`without ${group}`, figures(crossValidate(pools, folds, k, without, l2).ranks)));
    }

    const final = fit(pools, features, l2);
    console.log(`\nHeQ validation (never fitted on), paragraph = page\n${HEADER}`);
    console.log(line('first stage', figures(heq.map((p) => rank(p, null)))));
    console.log(line('+ page reranker (final model)', figures(heq.map((p) => rank(p, final)))));
    console.log('\ncoefficients (standardised features):');
    final.features.forEach((f, i) => console.log(`  ${f.padEnd(16)} ${final.weights[i].toFixed(3).padStart(7)}`));
  }
}

await main();
