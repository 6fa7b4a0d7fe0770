/**
 * Features of a candidate page for a second retrieval stage that ranks pages, not chunks: how
 * much of the question the page holds, whether its words stand together in one window, its word
 * pairs, the document the question names (title and file name), the routed domain, the kind of
 * document (web page, proposal form), its edition year. fit-page-rerank.ts fits a linear model on
 * them with cross-validation and reports held-out figures and an ablation.
 *
 * Measured (docs/benchmarks.md, "Ranking pages"): on dev-v2 and dev-v3 the fitted model moves
 * every figure by about one question either way at any L2 penalty, with the lexical features
 * alone (2026-11-24) and with E5's page similarity and each side's page rank added (2026-11-26),
 * so search does not use it; it stays here, measured, as the place to try the next evidence.
 */
import type { Chunk, IndexedDocument } from '../widget/core/schema.ts';
import { analyze } from '../widget/core/tokenizer/index.ts';
import { documentYear } from '../widget/core/retrieval/collapse.ts';
import type { PageCandidate } from '../widget/core/retrieval/page-groups.ts';
import type { RouteResult } from '../widget/core/retrieval/route.ts';
import { routeEvidence } from '../widget/loop/evidence.ts';
import { coverage, type Word } from '../widget/text/terms.ts';

/** Pages the model reorders; those after keep their first-stage order. */
export const RERANK_PAGES = 40;
/** Chunks of a page whose text the features read: its best ones in the pool. */
const CHUNKS_PER_PAGE = 2;
/** Width, in words, of the window in which the question's words should stand together. */
const WINDOW = 12;

/** The features, in the order the model's coefficients are stored. Grouped for the ablation. */
export const PAGE_FEATURE_GROUPS = {
  firstStage: ['firstStage', 'secondChunk', 'rankPrior', 'chunksInPool'],
  coverage: ['bodyCoverage', 'unmatchedMass'],
  proximity: ['windowCoverage', 'bigrams'],
  named: ['titleCoverage', 'sectionCoverage'],
  route: ['routeMatch'],
  kind: ['webPage', 'form'],
  recency: ['recency'],
  // E5's evidence (zero without vectors): the page's closeness to the question in meaning.
  semantic: ['pageCosine', 'pageCosine2', 'cosineGap'],
  // Where each side alone put the page: pages both sides rank high are rarely wrong.
  agreement: ['bm25PageRank', 'vectorPageRank'],
} as const;

export type PageFeatureGroup = keyof typeof PAGE_FEATURE_GROUPS;
export type PageFeature = (typeof PAGE_FEATURE_GROUPS)[PageFeatureGroup][number];
export const PAGE_FEATURES: readonly PageFeature[] = Object.values(PAGE_FEATURE_GROUPS).flat();

export interface PageRerankModel {
  version: number;
  features: readonly PageFeature[];
  /** Standardisation fitted with the weights: x' = (x - mean) / scale. */
  mean: readonly number[];
  scale: readonly number[];
  weights: readonly number[];
}

/** What the features need besides the page: the index, the question's words and their rarity. */
export interface RerankContext {
  chunks: readonly Chunk[];
  documents: readonly IndexedDocument[];
  /** The question's content words (widget/text/terms.ts contentWords). */
  words: readonly Word[];
  /** IDF of each word over the whole index. */
  idf: readonly number[];
  route: RouteResult | null;
  /** E5's view of the question, where the index has vectors and the question was embedded. */
  semantic?: SemanticEvidence | null;
}

/** The question's cosine with every chunk, and the pages each side of hybrid search ranks alone. */
export interface SemanticEvidence {
  /** Cosine of the question with each chunk of the index (int8 vectors, about 1 % error). */
  cosine: Float32Array;
  /** Every chunk of each page (`doc:page`), whether or not the pool holds it. */
  pageChunks: ReadonlyMap<string, readonly number[]>;
  /** 1-based page rank in BM25's candidates alone, and in the vectors' alone. */
  bm25Pages: ReadonlyMap<string, number>;
  vectorPages: ReadonlyMap<string, number>;
}

const pageKey = (doc: number, page: number) => `${doc}:${page}`;

/** A page's best and second-best chunk cosine (over all its chunks: the pool may hold one). */
function pageCosines(candidate: PageCandidate, semantic: SemanticEvidence): [number, number] {
  let best = -1;
  let second = -1;
  for (const c of semantic.pageChunks.get(pageKey(candidate.doc, candidate.page)) ?? candidate.chunks) {
    const x = semantic.cosine[c];
    if (x > best) [best, second] = [x, best];
    else if (x > second) second = x;
  }
  return [Math.max(best, 0), Math.max(second, 0)];
}

/** Each page (`doc:page`) at the rank of its best chunk in `hits`, 1-based. */
export function pageRanks(hits: readonly { chunk: number }[], chunks: readonly Chunk[]): Map<string, number> {
  const ranks = new Map<string, number>();
  for (const h of hits) {
    const key = pageKey(chunks[h.chunk].doc, chunks[h.chunk].page);
    if (!ranks.has(key)) ranks.set(key, ranks.size + 1);
  }
  return ranks;
}

/** Every chunk of each page, `doc:page` → chunk indexes, for SemanticEvidence. */
export function chunksByPage(chunks: readonly Chunk[]): Map<string, number[]> {
  const pages = new Map<string, number[]>();
  chunks.forEach((c, i) => {
    const key = pageKey(c.doc, c.page);
    const list = pages.get(key);
    if (list) list.push(i);
    else pages.set(key, [i]);
  });
  return pages;
}

/** The IDF-weighted share of the question's words that `terms` holds (the loop's coverage). */
const weightedShare = (ctx: RerankContext, terms: ReadonlySet<string>): number => coverage(ctx.words, terms, ctx.idf);

/** The largest IDF-weighted share of the question's words inside any WINDOW consecutive words. */
function windowCoverage(ctx: RerankContext, words: readonly (readonly string[])[]): number {
  // Which question word (index) each text word is, or -1.
  const lookup = new Map<string, number>();
  ctx.words.forEach((w, i) => w.forEach((t) => lookup.has(t) || lookup.set(t, i)));
  const hits = words.map((w) => {
    for (const t of w) {
      const i = lookup.get(t);
      if (i !== undefined) return i;
    }
    return -1;
  });
  const total = ctx.idf.reduce((s, x) => s + x, 0);
  if (total === 0) return 0;
  const inWindow = new Map<number, number>();
  let mass = 0;
  let best = 0;
  hits.forEach((q, at) => {
    if (q >= 0) {
      const n = inWindow.get(q) ?? 0;
      if (n === 0) mass += ctx.idf[q];
      inWindow.set(q, n + 1);
    }
    const out = at - WINDOW;
    if (out >= 0 && hits[out] >= 0) {
      const n = inWindow.get(hits[out])! - 1;
      inWindow.set(hits[out], n);
      if (n === 0) mass -= ctx.idf[hits[out]];
    }
    best = Math.max(best, mass);
  });
  return best / total;
}

/** Share of the question's consecutive word pairs that stand next to each other in the text. */
function bigramShare(ctx: RerankContext, words: readonly (readonly string[])[]): number {
  if (ctx.words.length < 2) return 0;
  const pairs = new Set<string>();
  for (let i = 1; i < words.length; i++) for (const a of words[i - 1]) for (const b of words[i]) pairs.add(`${a} ${b}`);
  let hit = 0;
  for (let i = 1; i < ctx.words.length; i++) {
    if (ctx.words[i - 1].some((a) => ctx.words[i].some((b) => pairs.has(`${a} ${b}`)))) hit++;
  }
  return hit / (ctx.words.length - 1);
}

/** Proposal forms and declarations repeat the question's words without answering it. */
const FORM = /הצעת?[\s-]ביטוח|טופס|הצהרת[\s-]בריאות|שאלון|proposal|application[\s-]form|declaration/i;

/**
 * The page's features, in PAGE_FEATURES order. `rank` is the page's first-stage rank (1-based);
 * `cosines` its best and second chunk cosine and `topCosine` the best page's (0 without vectors).
 */
export function pageFeatures(
  candidate: PageCandidate,
  rank: number,
  topScore: number,
  yearSpan: readonly [number, number],
  ctx: RerankContext,
  cosines: readonly [number, number] = [0, 0],
  topCosine = 0,
): number[] {
  const doc = ctx.documents[candidate.doc];
  const read = candidate.chunks.slice(0, CHUNKS_PER_PAGE).map((i) => ctx.chunks[i]);
  const analysed = read.map((c) =>
    analyze(c.text)
      .filter((w) => w.terms.length > 0)
      .map((w) => w.terms),
  );
  const body = new Set(analysed.flat(2));
  const title = new Set(analyze(`${doc.title} ${doc.file.replace(/[-_./]+/g, ' ')}`).flatMap((w) => w.terms));
  const sections = new Set(read.flatMap((c) => analyze(c.sectionPath.join(' ')).flatMap((w) => w.terms)));
  const bodyCoverage = weightedShare(ctx, body);
  const year = documentYear(doc);
  const [lo, hi] = yearSpan;
  const semantic = ctx.semantic ?? null;
  const [cosine, cosine2] = cosines;
  const sideRank = (ranks: ReadonlyMap<string, number> | undefined) => {
    const r = ranks?.get(pageKey(candidate.doc, candidate.page));
    return r ? 1 / r : 0;
  };
  const values: Record<PageFeature, number> = {
    firstStage: topScore > 0 ? candidate.scores[0] / topScore : 0,
    secondChunk: topScore > 0 && candidate.scores.length > 1 ? candidate.scores[1] / topScore : 0,
    rankPrior: 1 / rank,
    chunksInPool: Math.log1p(candidate.chunks.length),
    bodyCoverage,
    // The question's words the page lacks, by weight: the other side of coverage, squared so that
    // one missing key word costs more than two missing minor ones.
    unmatchedMass: (1 - bodyCoverage) ** 2,
    windowCoverage: Math.max(0, ...analysed.map((w) => windowCoverage(ctx, w))),
    bigrams: Math.max(0, ...analysed.map((w) => bigramShare(ctx, w))),
    titleCoverage: weightedShare(ctx, title),
    sectionCoverage: weightedShare(ctx, sections),
    routeMatch: ctx.route?.domain === doc.domain ? routeEvidence(ctx.route) : 0,
    webPage: doc.kind === 'page' ? 1 : 0,
    form: FORM.test(`${doc.title} ${doc.file}`) ? 1 : 0,
    recency: year > 0 && hi > lo ? (year - lo) / (hi - lo) : 0.5,
    pageCosine: cosine,
    pageCosine2: cosine2,
    cosineGap: semantic ? topCosine - cosine : 0,
    bm25PageRank: sideRank(semantic?.bm25Pages),
    vectorPageRank: sideRank(semantic?.vectorPages),
  };
  return PAGE_FEATURES.map((f) => values[f]);
}

/** Every candidate page's features, for the fitting script and for ranking. */
export function candidateFeatures(pages: readonly PageCandidate[], ctx: RerankContext, limit = RERANK_PAGES): number[][] {
  const head = pages.slice(0, limit);
  const topScore = head[0]?.scores[0] ?? 0;
  const years = head.map((p) => documentYear(ctx.documents[p.doc])).filter((y) => y > 0);
  const span: [number, number] = years.length ? [Math.min(...years), Math.max(...years)] : [0, 0];
  const semantic = ctx.semantic;
  const cosines = head.map((p): [number, number] => (semantic ? pageCosines(p, semantic) : [0, 0]));
  const topCosine = Math.max(0, ...cosines.map((c) => c[0]));
  return head.map((p, i) => pageFeatures(p, i + 1, topScore, span, ctx, cosines[i], topCosine));
}

export function pageScore(model: PageRerankModel, features: readonly number[]): number {
  let z = 0;
  model.features.forEach((name, i) => {
    const j = PAGE_FEATURES.indexOf(name);
    z += model.weights[i] * ((features[j] - model.mean[i]) / (model.scale[i] || 1));
  });
  return z;
}
