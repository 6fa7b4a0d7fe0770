/**
 * Runs a question set through the shared retrieval pipeline and scores it. The same function
 * serves the CLI's `eval` and tests; the browser eval scores the widget's ranked passages with
 * the same metrics module.
 */
import type { RouteResult } from '../../widget/core/retrieval/route.ts';
import { rankedPages, type SearchMode } from '../../widget/core/retrieval/retriever.ts';
import { throwIfAborted } from '../errors.ts';
import type { Chunk, IndexedDocument, WorkOptions } from '../../widget/core/schema.ts';
import { aggregate, groupMetrics, lenientFileRank, lenientPageRank, metricsBy, pageRank, scoreQuestion, type GroupMetrics, type LevelMetrics, type RankedPage, type TwinLookup } from './metrics.ts';
import type { EvalQuestion } from './questions.ts';

export interface RoutingMetrics {
  /** Share of questions with a domain whose top routed domain is right (confident or not). */
  accuracy: number;
  /** Share of questions routed with enough confidence to filter retrieval. */
  coverage: number;
  /** Accuracy among the confidently routed ones: how often the filter is right. */
  confidentAccuracy: number;
  evaluated: number;
}

export interface QuestionRecord {
  id: string;
  question: string;
  domain: string | null;
  difficulty: string | null;
  answerable: boolean;
  fileRank: number | null;
  pageRank: number | null;
  /** Ranks when a twin of a gold page counts (null without twin data). */
  fileRankLenient: number | null;
  pageRankLenient: number | null;
  routed: { domain: string | null; confidence: number; filtered: boolean } | null;
  ranked: { file: string; page: number; score: number; chunkId: string; twin: number | null; pageTwin: number | null }[];
  /** Pages the passages on the top 5 pages refer to (cross-references): context, never ranked. */
  referencedPages: { file: string; page: number; clause: string }[];
  ms: number;
}

/**
 * Cross-references add supporting context, not hits: ranking and every metric above are computed
 * without them. `hit@5` here counts a question when its gold page is among the top 5 pages or
 * among the pages those passages refer to; `rescued` counts the questions only the references found.
 */
export interface SupportMetrics {
  'hit@5': number;
  'hit@5Lenient': number;
  rescued: number;
  rescuedLenient: number;
  /** Share of questions whose top 5 pages refer to at least one clause. */
  withReferences: number;
}

export interface EvalReport {
  questions: number;
  answerable: number;
  unanswerable: number;
  mode: SearchMode;
  k: number;
  file: LevelMetrics;
  page: LevelMetrics;
  /** A retrieved file or page also counts when it is a near-identical twin of a gold page. */
  fileLenient: LevelMetrics;
  pageLenient: LevelMetrics;
  /**
   * Share of answerable questions whose first fact has a page anywhere among the k pages ranked
   * (recall@30 with `--k 30`), strictly and counting twins.
   */
  pageRecall: { strict: number; lenient: number };
  /** The gold page among the top 5 pages or the clauses they refer to. */
  pageWithReferences: SupportMetrics;
  routing: RoutingMetrics;
  byDomain: Record<string, GroupMetrics>;
  byDifficulty: Record<string, GroupMetrics>;
  latencyMs: { p50: number; p95: number };
  perQuestion: QuestionRecord[];
}

/**
 * Page twin groups: near-identical pages (each chunk carries its page's group) joined with the
 * pages that hold the same text in another-language edition (IndexedDocument.editions), so that
 * the lenient metrics count either as the gold page.
 */
export function twinLookup(documents: readonly IndexedDocument[], chunks: readonly Chunk[]): TwinLookup {
  const key = (file: string, page: number) => `${file}\u0000${page}`;
  const parent = new Map<string, string>();
  const find = (k: string): string => {
    let root = k;
    while (parent.has(root) && parent.get(root) !== root) root = parent.get(root)!;
    parent.set(k, root);
    return root;
  };
  const union = (a: string, b: string) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(ra, rb);
  };
  for (const c of chunks) if (c.pageTwin !== undefined) union(key(documents[c.doc].file, c.page), `twin:${c.pageTwin}`);
  for (const d of documents) {
    for (const ref of d.editions ?? []) for (const [p, q] of ref.pages) union(key(d.file, p), key(documents[ref.doc].file, q));
  }
  const ids = new Map<string, number>();
  const groupOf = (k: string): number => {
    if (!parent.has(k)) return -1;
    const root = find(k);
    if (!ids.has(root)) ids.set(root, ids.size);
    return ids.get(root)!;
  };
  const byFile = new Map<string, Set<number>>();
  for (const k of parent.keys()) {
    if (k.startsWith('twin:')) continue;
    const file = k.slice(0, k.indexOf('\u0000'));
    let set = byFile.get(file);
    if (!set) byFile.set(file, (set = new Set()));
    set.add(groupOf(k));
  }
  const none = new Set<number>();
  return {
    page: (file, page) => groupOf(key(file, page)),
    fileGroups: (file) => byFile.get(file) ?? none,
  };
}

/** What scoring needs of a search: the Retriever's SearchResult satisfies it, and so do baselines. */
export interface EvalSearchResult {
  route: RouteResult | null;
  domainFilter: string | null;
  hits: readonly {
    file: string;
    page: number;
    score: number;
    chunkId: string;
    twin?: number | null;
    pageTwin?: number | null;
    references?: readonly { clause: string; page: number }[];
  }[];
}

const SUPPORT_PAGES = 5;

/** Pages referred to by the passages on the first `pages` ranked pages, in order, without repeats. */
function referencedPages(hits: EvalSearchResult['hits'], pages: number): QuestionRecord['referencedPages'] {
  const top = new Set(
    rankedPages(hits)
      .slice(0, pages)
      .map((p) => `${p.file}\u0000${p.page}`),
  );
  const seen = new Set<string>();
  const out: QuestionRecord['referencedPages'] = [];
  for (const h of hits) {
    if (!top.has(`${h.file}\u0000${h.page}`)) continue;
    for (const ref of h.references ?? []) {
      const key = `${h.file}\u0000${ref.page}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({ file: h.file, page: ref.page, clause: ref.clause });
    }
  }
  return out;
}

/**
 * Identical files are indexed once (the build reports them as duplicates); a citation of the
 * copy that was dropped names the same text, so gold refs are mapped to the kept file.
 */
export function aliasMap(documents: readonly IndexedDocument[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const d of documents) for (const alias of d.aliases ?? []) map.set(alias, d.file);
  return map;
}

/** Searches one question; the caller owns embedding and the mode. */
export type SearchFn = (question: string) => Promise<EvalSearchResult>;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function runEval(
  questions: readonly EvalQuestion[],
  searchFn: SearchFn,
  options: WorkOptions & { k: number; mode: SearchMode; aliases?: ReadonlyMap<string, string>; twins?: TwinLookup },
): Promise<EvalReport> {
  const aliases = options.aliases;
  const canonical = (q: EvalQuestion): EvalQuestion => (aliases?.size ? { ...q, facts: q.facts.map((f) => f.map((r) => ({ ...r, file: aliases.get(r.file) ?? r.file }))) } : q);
  const records: QuestionRecord[] = [];
  const support: { strict: boolean; lenient: boolean; rescued: boolean; rescuedLenient: boolean; any: boolean }[] = [];
  let done = 0;
  for (const q of questions) {
    throwIfAborted(options.signal);
    const start = performance.now();
    const result = await searchFn(q.question);
    const ms = performance.now() - start;
    const ranked: RankedPage[] = rankedPages(result.hits).slice(0, options.k);
    const score = q.answerable ? scoreQuestion(canonical(q), ranked) : { fileRank: null, pageRank: null };
    const fact = canonical(q).facts[0] ?? [];
    const twins = options.twins;
    const refs = referencedPages(result.hits, SUPPORT_PAGES);
    const lenient = q.answerable && twins ? { file: lenientFileRank(fact, ranked, twins), page: lenientPageRank(fact, ranked, twins) } : { file: score.fileRank, page: score.pageRank };
    records.push({
      id: q.id,
      question: q.question,
      domain: q.domain,
      difficulty: q.difficulty,
      answerable: q.answerable,
      fileRank: score.fileRank,
      pageRank: score.pageRank,
      fileRankLenient: lenient.file,
      pageRankLenient: lenient.page,
      routed: result.route ? { domain: result.route.domain, confidence: result.route.confidence, filtered: result.domainFilter !== null } : null,
      ranked: result.hits.map((h) => ({ file: h.file, page: h.page, score: h.score, chunkId: h.chunkId, twin: h.twin ?? null, pageTwin: h.pageTwin ?? null })),
      referencedPages: refs,
      ms,
    });
    if (q.answerable) {
      const inTop = (rank: number | null) => rank !== null && rank <= SUPPORT_PAGES;
      const strictRef = pageRank(fact, refs) !== null;
      const lenientRef = twins ? lenientPageRank(fact, refs, twins) !== null : strictRef;
      support.push({
        strict: inTop(score.pageRank) || strictRef,
        lenient: inTop(lenient.page) || lenientRef,
        rescued: !inTop(score.pageRank) && strictRef,
        rescuedLenient: !inTop(lenient.page) && lenientRef,
        any: refs.length > 0,
      });
    }
    options.onProgress?.({ step: 'eval', done: ++done, total: questions.length, detail: q.id });
  }
  const answerable = records.filter((r) => r.answerable);
  const answerableQuestions = questions.filter((q) => q.answerable);
  const scores = answerable.map((r) => ({ id: r.id, fileRank: r.fileRank, pageRank: r.pageRank }));
  const overall = groupMetrics(scores);
  const routedRecords = records.filter((r) => r.domain && r.routed);
  const confident = routedRecords.filter((r) => r.routed!.filtered);
  const share = (n: number, d: number) => (d === 0 ? 0 : n / d);
  return {
    questions: records.length,
    answerable: answerable.length,
    unanswerable: records.length - answerable.length,
    mode: options.mode,
    k: options.k,
    file: overall.file,
    page: overall.page,
    fileLenient: aggregate(answerable.map((r) => r.fileRankLenient)),
    pageLenient: aggregate(answerable.map((r) => r.pageRankLenient)),
    pageRecall: {
      strict: share(answerable.filter((r) => r.pageRank !== null).length, answerable.length),
      lenient: share(answerable.filter((r) => r.pageRankLenient !== null).length, answerable.length),
    },
    pageWithReferences: {
      'hit@5': share(support.filter((s) => s.strict).length, support.length),
      'hit@5Lenient': share(support.filter((s) => s.lenient).length, support.length),
      rescued: support.filter((s) => s.rescued).length,
      rescuedLenient: support.filter((s) => s.rescuedLenient).length,
      withReferences: share(support.filter((s) => s.any).length, support.length),
    },
    routing: {
      accuracy: share(routedRecords.filter((r) => r.routed!.domain === r.domain).length, routedRecords.length),
      coverage: share(confident.length, routedRecords.length),
      confidentAccuracy: share(confident.filter((r) => r.routed!.domain === r.domain).length, confident.length),
      evaluated: routedRecords.length,
    },
    byDomain: metricsBy(answerableQuestions, scores, (q) => q.domain),
    byDifficulty: metricsBy(answerableQuestions, scores, (q) => q.difficulty),
    latencyMs: {
      p50: percentile(
        records.map((r) => r.ms),
        50,
      ),
      p95: percentile(
        records.map((r) => r.ms),
        95,
      ),
    },
    perQuestion: records,
  };
}
