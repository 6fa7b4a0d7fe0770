/**
 * Fits hybrid search's fusion on development data with cross-validation, and reports BM25,
 * vectors and each fusion side by side on held-out folds:
 *
 *   npx tsx builder/eval/fit-fusion.ts [--harel .tmp/harel-e5] [--heq .tmp/heq-e5] [--model-dir models]
 *       [--folds 5] [--seed 7] [--write builder/eval/fit/fusion-result.json] [--write-defaults]
 *       [--query-text as-asked|without-function-words] [--center none|passages|both] [--prf k,beta]
 *       [--query-vectors training/query-encoder/runs/<run>-f0/held_out.json ...]   (the tuned encoder's held-out folds)
 *
 * Data (read from ../shared/data, never copied): dev-v2 and dev-v3 over the Harel index (routed,
 * as the widget searches), HeQ validation over its own index (not routed, as `eval --no-route`).
 * Both indexes need E5 vectors (`build … --model-dir models`). Each answerable question is
 * embedded once and its BM25 and vector candidates fetched once per pool size through the
 * Retriever; every fusion in the grid then ranks those candidates through the Retriever's own
 * fuseCandidates, so a figure here is what `harel-builder eval` and the widget rank.
 *
 * The grid: min-max weighted scores (BM25 weight 0…1) and weighted reciprocal-rank fusion (k,
 * weight), each with the BM25 and the vector pool (candidates entering fusion). Folds split by
 * question within each set (seeded); on each fold the grid point with the best training objective
 * ranks the held-out questions. The objective is the mean of strict page hit@5, hit@10, recall@30
 * and MRR, the Harel questions (dev-v2 and dev-v3 pooled) and HeQ weighing half each. "Held-out" figures rank every question with a choice
 * made without it; the final choice is refitted on all questions, and `--write-defaults` writes it
 * into widget/core/retrieval/fusion-defaults.ts (the file the build and the widget read) with this
 * command, its inputs' hash and the held-out figures; without it the script says when the two differ.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import type { LoadedIndex } from '../../widget/core/format/read-index.ts';
import type { FusionMethod } from '../../widget/core/retrieval/fuse.ts';
import { corpusCentroid } from '../../widget/core/retrieval/corpus-centroid.ts';
import { FITTED_FUSION, type FusionDefaults } from '../../widget/core/retrieval/fusion-defaults.ts';
import { groupBySection, placesOf } from '../../widget/core/retrieval/page-groups.ts';
import { rankedPages, Retriever, type FirstStageCandidates, type SearchMode, type SearchOptions } from '../../widget/core/retrieval/retriever.ts';
import { readIndexFolder } from '../read-index-folder.ts';
import { commandLine, fusionDefaultsSource, provenance } from './fit/constants-source.ts';
import { assignFolds } from './fit/folds.ts';
import { queryVectors } from './fit/query-vectors.ts';
import { queryText, QUERY_TEXTS, type QueryText } from './fit/query-text.ts';
import { lenientPageRank, pageRank, type RankedPage, type TwinLookup } from './metrics.ts';
import { loadQuestions, type SourceRef } from './questions.ts';
import { aliasMap, twinLookup } from './run-eval.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATA = join(ROOT, '../shared/data');

/** Pages scored, as `eval --k 30`; that eval asks for 3 × k sections, so the same are read here. */
const K = 30;
const SECTIONS = 3 * K;
/** The fixed single-sided pool first: among grid points that tie, the first listed is kept. */
const POOLS = [150, 300, 75, 30] as const;
const MINMAX_WEIGHTS = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];
const RRF_KS = [10, 30, 60, 120];
const RRF_WEIGHTS = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8];
const SETS = ['dev-v2', 'dev-v3', 'heq'] as const;
type SetName = (typeof SETS)[number];

type Config = FusionDefaults;

function grid(methods: readonly FusionMethod[]): Config[] {
  const out: Config[] = [];
  for (const bm25Pool of POOLS) {
    for (const vectorPool of POOLS) {
      if (methods.includes('minmax')) for (const w of MINMAX_WEIGHTS) out.push({ fusion: 'minmax', bm25Weight: w, rrfK: FITTED_FUSION.rrfK, bm25Pool, vectorPool });
      if (methods.includes('rrf')) for (const rrfK of RRF_KS) for (const w of RRF_WEIGHTS) out.push({ fusion: 'rrf', bm25Weight: w, rrfK, bm25Pool, vectorPool });
    }
  }
  return out;
}

const label = (c: Config) => `${c.fusion === 'rrf' ? `RRF k ${c.rrfK}` : 'min-max'}, BM25 weight ${c.bm25Weight}, pools ${c.bm25Pool} BM25 / ${c.vectorPool} vector`;
const sameConfig = (a: Config, b: Config) =>
  a.fusion === b.fusion && a.bm25Weight === b.bm25Weight && a.bm25Pool === b.bm25Pool && a.vectorPool === b.vectorPool && (a.fusion === 'minmax' || a.rrfK === b.rrfK);

/** One answerable question: its gold first fact and its candidates per pool size. */
interface Pool {
  set: SetName;
  id: string;
  fact: SourceRef[];
  retriever: Retriever;
  twins: TwinLookup;
  bm25Only: FirstStageCandidates;
  vectorOnly: FirstStageCandidates;
  /** Hybrid candidates with both pools at POOLS[i]; a smaller vector pool is a prefix of a larger one. */
  byPool: Map<number, FirstStageCandidates>;
}

interface Rank {
  strict: number | null;
  twins: number | null;
}

/** The page ranks of the gold fact, strictly and counting twins, in `pages`. */
function rankIn(p: Pool, pages: readonly RankedPage[]): Rank {
  return { strict: pageRank(p.fact, pages), twins: lenientPageRank(p.fact, pages, p.twins) };
}

/** Exactly what `eval --k 30` scores: the first 3 × 30 sections of search(), as distinct pages. */
function searchPages(p: Pool, ranked: readonly { chunk: number; score: number }[]): RankedPage[] {
  const { index } = p.retriever;
  const sections = groupBySection(ranked, placesOf(index.chunks)).slice(0, SECTIONS);
  return rankedPages(sections.map((s) => ({ file: index.documents[s.doc].file, page: s.page }))).slice(0, K);
}

/**
 * The same pages as searchPages, stopping at the 30th page or the 90th section instead of
 * grouping all of the few hundred fused candidates: the grid ranks every question hundreds of
 * times. main() checks the two agree.
 */
function firstPages(p: Pool, ranked: readonly { chunk: number; score: number }[]): RankedPage[] {
  const { chunks, documents } = p.retriever.index;
  const sections = new Set<string>();
  const seen = new Set<string>();
  const pages: RankedPage[] = [];
  for (const h of ranked) {
    const c = chunks[h.chunk];
    const section = `${c.doc}:${c.page}:${c.parentId}`;
    if (sections.has(section)) continue;
    if (sections.size === SECTIONS) break;
    sections.add(section);
    const file = documents[c.doc].file;
    const key = `${file}\u0000${c.page}`;
    if (seen.has(key)) continue;
    seen.add(key);
    pages.push({ file, page: c.page });
    if (pages.length === K) break;
  }
  return pages;
}

function hybridCandidates(p: Pool, c: Config): FirstStageCandidates {
  return { ...p.byPool.get(c.bm25Pool)!, vector: p.byPool.get(c.vectorPool)!.vector };
}

const fusionOptions = (c: Config): SearchOptions => ({ fusion: c.fusion, bm25Weight: c.bm25Weight, rrfK: c.rrfK });

function hybridRank(p: Pool, c: Config): Rank {
  return rankIn(p, firstPages(p, p.retriever.fuseCandidates(hybridCandidates(p, c), fusionOptions(c))));
}

/** Throws unless the fast page scan ranks `c` as search() and `eval` do, on every question. */
function checkAgreement(pools: readonly Pool[], c: Config): void {
  for (const p of pools) {
    const ranked = p.retriever.fuseCandidates(hybridCandidates(p, c), fusionOptions(c));
    const a = JSON.stringify(firstPages(p, ranked));
    if (a !== JSON.stringify(searchPages(p, ranked))) throw new Error(`${p.set}/${p.id}: the fast page scan disagrees with search() under ${label(c)}`);
  }
}

interface Figures {
  n: number;
  strict: Record<string, number>;
  twins: Record<string, number>;
}

function figures(ranks: readonly Rank[]): Figures {
  const at = (key: keyof Rank) => {
    const r = ranks.map((x) => x[key]);
    const n = r.length || 1;
    const hit = (k: number) => r.filter((x) => x !== null && x <= k).length / n;
    return { 'hit@1': hit(1), 'hit@5': hit(5), 'hit@10': hit(10), 'recall@30': hit(30), mrr: r.reduce<number>((s, x) => s + (x ? 1 / x : 0), 0) / n };
  };
  return { n: ranks.length, strict: at('strict'), twins: at('twins') };
}

/**
 * The fitting objective over questions `which`: the Harel questions (dev-v2 and dev-v3 together,
 * each question weighing the same) and HeQ's weigh half each. Seventeen dev-v3 questions weighing
 * a third on their own made the choice follow two or three of them.
 */
const CORPORA: readonly (readonly SetName[])[] = [['dev-v2', 'dev-v3'], ['heq']];
function objective(pools: readonly Pool[], ranks: readonly Rank[], which: readonly number[]): number {
  let total = 0;
  let parts = 0;
  for (const sets of CORPORA) {
    const own = which.filter((i) => sets.includes(pools[i].set)).map((i) => ranks[i]);
    if (own.length === 0) continue;
    const f = figures(own).strict;
    total += (f['hit@5'] + f['hit@10'] + f['recall@30'] + f.mrr) / 4;
    parts++;
  }
  return total / (parts || 1);
}

/** Folds dealt within each set, so that every fold holds its share of dev-v3's few questions. */
function stratifiedFolds(pools: readonly Pool[], k: number, seed: number): number[] {
  const folds = new Array<number>(pools.length);
  for (const set of SETS) {
    const members = pools.map((p, i) => ({ p, i })).filter(({ p }) => p.set === set);
    const assigned = assignFolds(
      members.map(({ p }) => p.id),
      k,
      seed,
    );
    members.forEach(({ i }, j) => (folds[i] = assigned[j]));
  }
  return folds;
}

function bySet(pools: readonly Pool[], ranks: readonly Rank[], which?: readonly number[]): Record<SetName, Figures> {
  const keep = which ? new Set(which) : null;
  return Object.fromEntries(
    SETS.map((s) => [
      s,
      figures(
        pools
          .map((p, i) => ({ p, i }))
          .filter(({ p, i }) => p.set === s && (!keep || keep.has(i)))
          .map(({ i }) => ranks[i]),
      ),
    ]),
  ) as Record<SetName, Figures>;
}

/** Held-out ranks: on each fold, the grid point that scores best on the other folds ranks it. */
function crossValidate(pools: readonly Pool[], configs: readonly Config[], table: readonly Rank[][], folds: readonly number[], k: number) {
  const held = new Array<Rank>(pools.length);
  const perFold: { fold: number; chosen: Config; trainObjective: number; heldOut: Record<SetName, Figures> }[] = [];
  for (let f = 0; f < k; f++) {
    const train = pools.map((_, i) => i).filter((i) => folds[i] !== f);
    const test = pools.map((_, i) => i).filter((i) => folds[i] === f);
    let best = 0;
    let bestScore = -Infinity;
    configs.forEach((_, c) => {
      const score = objective(pools, table[c], train);
      if (score > bestScore + 1e-12) {
        best = c;
        bestScore = score;
      }
    });
    for (const i of test) held[i] = table[best][i];
    perFold.push({ fold: f + 1, chosen: configs[best], trainObjective: bestScore, heldOut: bySet(pools, table[best], test) });
  }
  return { held, perFold };
}

const pct = (x: number) => `${(100 * x).toFixed(1)} %`.padStart(7);
function line(name: string, f: Figures): string {
  const s = f.strict;
  const t = f.twins;
  const cells = (m: Record<string, number>) => `${pct(m['hit@1'])} ${pct(m['hit@5'])} ${pct(m['hit@10'])} ${pct(m['recall@30'])} ${m.mrr.toFixed(3)}`;
  return `${name.padEnd(52)} ${String(f.n).padStart(4)} | ${cells(s)} | ${cells(t)}`;
}
const HEADER = `${''.padEnd(52)}    n | strict: hit@1  hit@5  hit@10  rec@30   MRR | twins count: hit@1 hit@5 hit@10 rec@30 MRR`;

/**
 * `--center`: E5's vectors crowd one direction (the Harel chunks' mean cosine to their mean is
 * 0.92), so a chunk near that mean is near every question. `passages` ranks by the cosine to each
 * chunk's vector less the index's mean vector; `both` takes the mean from the question too.
 */
const CENTERINGS = ['none', 'passages', 'both'] as const;
type Centering = (typeof CENTERINGS)[number];
/** `--prf k,beta`: the question's vector moved towards the mean of BM25's first k chunks' vectors, at weight beta. */
type Feedback = readonly [k: number, beta: number] | null;

function withFeedback(retriever: Retriever, question: string, route: boolean, vector: Float32Array, prf: Feedback): Float32Array {
  const table = retriever.index.vectors;
  if (!prf || !table) return vector;
  const top = retriever.candidates(question, { route, mode: 'bm25' }).bm25.slice(0, prf[0]);
  const moved = Float32Array.from(vector);
  for (const h of top) for (let d = 0; d < table.dim; d++) moved[d] += (prf[1] / top.length) * table.data[h.chunk * table.dim + d] * table.scales[h.chunk];
  const length = Math.hypot(...moved) || 1;
  return moved.map((v) => v / length);
}
const centerings = new WeakMap<LoadedIndex, { mean: Float32Array; both: boolean }>();

function centered(index: LoadedIndex, how: Centering): LoadedIndex {
  const table = index.vectors;
  if (how === 'none' || !table) return index;
  const centroid = corpusCentroid(table)!;
  const mean = Float32Array.from(centroid.direction, (v) => v * centroid.coherence);
  const { count, dim, data } = table;
  const out = new Int8Array(data.length);
  const outScales = new Float32Array(count);
  const row = new Float32Array(dim);
  for (let i = 0; i < count; i++) {
    let norm = 0;
    for (let d = 0; d < dim; d++) norm += data[i * dim + d] ** 2;
    const inv = 1 / Math.sqrt(norm || 1);
    let length = 0;
    for (let d = 0; d < dim; d++) {
      row[d] = data[i * dim + d] * inv - mean[d];
      length += row[d] ** 2;
    }
    length = Math.sqrt(length) || 1;
    let max = 0;
    for (let d = 0; d < dim; d++) max = Math.max(max, Math.abs(row[d] / length));
    const scale = max / 127 || 1;
    for (let d = 0; d < dim; d++) out[i * dim + d] = Math.round(row[d] / length / scale);
    outScales[i] = scale;
  }
  const result = { ...index, vectors: { count, dim, data: out, scales: outScales } };
  centerings.set(result, { mean, both: how === 'both' });
  return result;
}

/** The question's vector as the centred index compares it (unchanged unless `--center both`). */
function centeredQuery(index: LoadedIndex, vector: Float32Array): Float32Array {
  const c = centerings.get(index);
  if (!c?.both) return vector;
  const out = Float32Array.from(vector, (v, d) => v - c.mean[d]);
  const length = Math.hypot(...out) || 1;
  return out.map((v) => v / length);
}

/**
 * `--query-vectors`: each question's vector from files written elsewhere (text → vector), e.g. the
 * tuned question encoder's held-out folds (training/query-encoder/runs/<run>/held_out.json: every
 * question embedded by the adapter that never saw it), in place of the stock model's.
 */
async function readQueryVectors(files: readonly string[]): Promise<Map<string, Float32Array> | null> {
  if (files.length === 0) return null;
  const out = new Map<string, Float32Array>();
  for (const file of files) {
    const json = JSON.parse(await readFile(file, 'utf8')) as { vectors?: Record<string, number[]> };
    for (const [text, v] of Object.entries(json.vectors ?? {})) out.set(text, Float32Array.from(v));
  }
  return out;
}

async function collect(
  set: SetName,
  index: LoadedIndex,
  file: string,
  route: boolean,
  modelDir: string,
  cacheFile: string,
  embedded: (question: string) => string,
  prf: Feedback,
  given: Map<string, Float32Array> | null,
): Promise<Pool[]> {
  const retriever = new Retriever(index);
  const aliases = aliasMap(index.documents);
  const twins = twinLookup(index.documents, index.chunks);
  const questions = (await loadQuestions(file)).filter((q) => q.answerable);
  const missing = given ? questions.filter((q) => !given.has(embedded(q.question))) : [];
  if (missing.length) throw new Error(`--query-vectors has no vector for ${missing.length} ${set} question(s), e.g. "${missing[0].question}"`);
  const vectors =
    given ??
    (await queryVectors(
      index,
      questions.map((q) => embedded(q.question)),
      modelDir,
      cacheFile,
    ));
  return questions.map((q) => {
    const queryVector = withFeedback(retriever, q.question, route, centeredQuery(index, vectors.get(embedded(q.question))!), prf);
    const base = { route, queryVector };
    const byPool = new Map(POOLS.map((n) => [n, retriever.candidates(q.question, { ...base, mode: 'hybrid', bm25Pool: n, vectorPool: n })]));
    const one = (mode: SearchMode) => retriever.candidates(q.question, { ...base, mode });
    const fact = (q.facts[0] ?? []).map((r) => ({ ...r, file: aliases.get(r.file) ?? r.file }));
    return { set, id: q.id, fact, retriever, twins, bm25Only: one('bm25'), vectorOnly: one('vector'), byPool };
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      harel: { type: 'string', default: '.tmp/harel-e5' },
      heq: { type: 'string', default: '.tmp/heq-e5' },
      'model-dir': { type: 'string', default: 'models' },
      folds: { type: 'string', default: '5' },
      seed: { type: 'string', default: '7' },
      'query-cache': { type: 'string', default: '.tmp/fit-fusion-queries.json' },
      write: { type: 'string' },
      'write-defaults': { type: 'boolean', default: false },
      'query-text': { type: 'string', default: 'as-asked' },
      center: { type: 'string', default: 'none' },
      prf: { type: 'string' },
      'query-vectors': { type: 'string', multiple: true, default: [] },
    },
  });
  const given = await readQueryVectors(values['query-vectors']!);
  const prf: Feedback = values.prf ? (values.prf.split(',').map(Number) as [number, number]) : null;
  if (prf && (prf.length !== 2 || prf.some((v) => !Number.isFinite(v)))) throw new Error('--prf is k,beta, e.g. 3,0.5');
  const center = values.center as Centering;
  if (!CENTERINGS.includes(center)) throw new Error(`--center is one of ${CENTERINGS.join(', ')}`);
  const kind = values['query-text'] as QueryText;
  if (!QUERY_TEXTS.includes(kind)) throw new Error(`--query-text is one of ${QUERY_TEXTS.join(', ')}`);
  const embedded = queryText(kind);
  // The widget embeds the question as asked, with no centring, feedback or tuned encoder: a fusion
  // fitted under any of those would not be the one it ranks with.
  if (values['write-defaults'] && (kind !== 'as-asked' || center !== 'none' || prf || given)) {
    throw new Error('--write-defaults fits the fusion the widget runs: drop --query-text, --center, --prf and --query-vectors.');
  }
  if (!existsSync(DATA)) throw new Error(`${DATA} is absent: the fitting data sits beside the repository.`);
  for (const dir of [values.harel!, values.heq!]) {
    if (!existsSync(join(dir, 'manifest.json'))) throw new Error(`${dir} is not an index: build it first (README, "Measured on the real corpus").`);
  }
  const k = Number(values.folds);
  const seed = Number(values.seed);
  const modelDir = values['model-dir']!;
  const cache = values['query-cache']!;
  const harel = centered(await readIndexFolder(values.harel!), center);
  const heq = centered(await readIndexFolder(values.heq!), center);
  const pools = [
    ...(await collect('dev-v2', harel, join(DATA, 'harel/questions/dev-v2.json'), true, modelDir, cache, embedded, prf, given)),
    ...(await collect('dev-v3', harel, join(DATA, 'harel/questions/dev-v3.json'), true, modelDir, cache, embedded, prf, given)),
    ...(await collect('heq', heq, join(DATA, 'heq/heq_v1.1_val.json'), false, modelDir, cache, embedded, prf, given)),
  ];
  const folds = stratifiedFolds(pools, k, seed);
  const counts = SETS.map((s) => `${s} ${pools.filter((p) => p.set === s).length}`).join(', ');
  console.log(`${pools.length} answerable questions (${counts}); ${k} folds, seed ${seed}; page ranks over the first ${K} pages`);

  const configs = grid(['minmax', 'rrf']);
  const started = performance.now();
  const table = configs.map((c) => pools.map((p) => hybridRank(p, c)));
  console.log(`${configs.length} fusions ranked in ${((performance.now() - started) / 1000).toFixed(0)} s`);

  const fixed = {
    bm25: pools.map((p) => rankIn(p, searchPages(p, p.retriever.fuseCandidates(p.bm25Only)))),
    vector: pools.map((p) => rankIn(p, searchPages(p, p.retriever.fuseCandidates(p.vectorOnly)))),
  };
  const unfitted: Config = { fusion: 'minmax', bm25Weight: 0.5, rrfK: 60, bm25Pool: 150, vectorPool: 150 };
  const unfittedRanks = table[configs.findIndex((c) => sameConfig(c, unfitted))];
  const indexes = (method: FusionMethod | null) =>
    configs
      .map((c, i) => ({ c, i }))
      .filter(({ c }) => method === null || c.fusion === method)
      .map(({ i }) => i);
  const fitted = Object.fromEntries(
    (
      [
        ['minmax', 'minmax'],
        ['rrf', 'rrf'],
        ['either', null],
      ] as const
    ).map(([name, method]) => {
      const which = indexes(method);
      return [
        name,
        crossValidate(
          pools,
          which.map((i) => configs[i]),
          which.map((i) => table[i]),
          folds,
          k,
        ),
      ];
    }),
  ) as Record<'minmax' | 'rrf' | 'either', ReturnType<typeof crossValidate>>;

  const rows: [string, string, readonly Rank[]][] = [
    ['bm25', 'BM25 (nothing fitted)', fixed.bm25],
    ['vector', 'vector (nothing fitted)', fixed.vector],
    ['hybrid-unfitted', 'hybrid, min-max 0.5, pools 150 / 150 (unfitted)', unfittedRanks],
    ['hybrid-minmax', 'hybrid min-max, weight and pools fitted (held-out)', fitted.minmax.held],
    ['hybrid-rrf', 'hybrid RRF, k, weight and pools fitted (held-out)', fitted.rrf.held],
    ['hybrid', 'hybrid, method, weight, pools fitted (held-out)', fitted.either.held],
  ];
  const heldOut: Record<string, Record<SetName, Figures>> = {};
  for (const set of SETS) {
    console.log(`\n${set}\n${HEADER}`);
    for (const [key, name, ranks] of rows) {
      heldOut[key] ??= bySet(pools, ranks);
      console.log(line(name, heldOut[key][set]));
    }
  }
  for (const [name, cv] of Object.entries(fitted)) {
    console.log(`\n${name}: per fold, the choice made on the other folds and its held-out figures\n${HEADER}`);
    for (const f of cv.perFold) {
      console.log(`fold ${f.fold}: ${label(f.chosen)} (training objective ${f.trainObjective.toFixed(4)})`);
      for (const set of SETS) console.log(line(`  ${set}`, f.heldOut[set]));
    }
  }

  const all = pools.map((_, i) => i);
  const scored = configs.map((c, i) => ({ c, i, score: objective(pools, table[i], all) })).sort((a, b) => b.score - a.score || a.i - b.i);
  const chosen = scored[0];
  console.log(`\nbest ten on all questions (objective: hit@5, hit@10, recall@30, MRR, strict; Harel and HeQ half each)`);
  for (const s of scored.slice(0, 10)) console.log(`  ${s.score.toFixed(4)}  ${label(s.c)}`);
  const unfittedScore = objective(pools, unfittedRanks, all);
  console.log(`  ${unfittedScore.toFixed(4)}  ${label(unfitted)} (unfitted)`);
  for (const c of [unfitted, chosen.c, ...Object.values(fitted).flatMap((cv) => cv.perFold.map((f) => f.chosen))]) checkAgreement(pools, c);
  const inSample = bySet(pools, table[chosen.i]);
  console.log(`\nchosen: ${label(chosen.c)}; on all questions (in-sample)\n${HEADER}`);
  for (const set of SETS) console.log(line(set, inSample[set]));
  if (!sameConfig(chosen.c, FITTED_FUSION)) {
    console.log(`\nwidget/core/retrieval/fusion-defaults.ts holds ${label(FITTED_FUSION)}; the fit chose:\n  ${JSON.stringify(chosen.c)}`);
  }

  if (values.write) {
    const result = {
      script: 'npx tsx builder/eval/fit-fusion.ts',
      data: { 'dev-v2': 'harel/questions/dev-v2.json', 'dev-v3': 'harel/questions/dev-v3.json', heq: 'heq/heq_v1.1_val.json' },
      indexes: { harel: harel.manifest.buildId, heq: heq.manifest.buildId, embedder: harel.manifest.embedder ?? null },
      questions: Object.fromEntries(SETS.map((s) => [s, pools.filter((p) => p.set === s).length])),
      folds: k,
      seed,
      objective: 'mean of strict page hit@5, hit@10, recall@30 and MRR; the Harel questions (dev-v2 and dev-v3 pooled) and HeQ weigh half each',
      grid: { pools: POOLS, minmaxWeights: MINMAX_WEIGHTS, rrfK: RRF_KS, rrfWeights: RRF_WEIGHTS, configs: configs.length },
      chosen: chosen.c,
      heldOut,
      perFold: Object.fromEntries(Object.entries(fitted).map(([name, cv]) => [name, cv.perFold])),
      inSample,
      top: scored.slice(0, 10).map((s) => ({ ...s.c, objective: s.score })),
    };
    await writeFile(values.write, `${JSON.stringify(result, roundNumbers, 2)}\n`);
    console.log(`\nwrote ${values.write}`);
  }
  if (values['write-defaults']) {
    const inputs = [
      ...(['harel/questions/dev-v2.json', 'harel/questions/dev-v3.json', 'heq/heq_v1.1_val.json'] as const).map((file) => ({ label: file, file: join(DATA, file) })),
      { label: `harel index ${harel.manifest.buildId}`, text: harel.manifest.buildId },
      { label: `heq index ${heq.manifest.buildId}`, text: heq.manifest.buildId },
    ];
    const held = (key: string, set: SetName, metric: string) => heldOut[key][set].strict[metric];
    const header = [
      ...(await provenance(commandLine('builder/eval/fit-fusion.ts', process.argv.slice(2)), inputs)),
      `${counts} answerable questions; ${k} folds, seed ${seed}. The folds chose: ${fitted.either.perFold.map((f) => label(f.chosen)).join('; ')}.`,
      `Held-out, unfitted (min-max 0.5, pools 150 / 150) → fitted, strict: ${SETS.map((s) => `${s} MRR ${held('hybrid-unfitted', s, 'mrr').toFixed(3)} → ${held('hybrid', s, 'mrr').toFixed(3)}, hit@5 ${pct(held('hybrid-unfitted', s, 'hit@5')).trim()} → ${pct(held('hybrid', s, 'hit@5')).trim()}`).join('; ')}.`,
    ];
    const out = join(ROOT, 'widget/core/retrieval/fusion-defaults.ts');
    await writeFile(out, fusionDefaultsSource(chosen.c, header));
    console.log(`\nwrote ${out} (${label(chosen.c)})`);
  }
}

function roundNumbers(_key: string, value: unknown): unknown {
  return typeof value === 'number' && !Number.isInteger(value) ? Number(value.toFixed(4)) : value;
}

await main();
