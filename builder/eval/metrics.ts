/**
 * Retrieval metrics over ranked lists: hit@k and reciprocal rank at file level and at
 * file+page level. Pure functions, shared by the Node eval and the browser eval.
 *
 * A question is hit when its FIRST fact is found (any ref of its `any_of`); a ref with page
 * null is found by any page of its file.
 */
import type { EvalQuestion, SourceRef } from './questions.ts';

export interface RankedPage {
  file: string;
  page: number;
}

export const CUTOFFS = [1, 5, 10] as const;

export interface LevelMetrics {
  'hit@1': number;
  'hit@5': number;
  'hit@10': number;
  mrr: number;
}

export interface QuestionScore {
  id: string;
  /** 1-based rank of the first distinct file / page that establishes the first fact; null if absent. */
  fileRank: number | null;
  pageRank: number | null;
}

function refMatchesPage(ref: SourceRef, page: RankedPage): boolean {
  return ref.file === page.file && (ref.page === null || ref.page === page.page);
}

/** Rank (1-based) of the first page establishing the fact, counting distinct pages. */
export function pageRank(fact: readonly SourceRef[], ranked: readonly RankedPage[]): number | null {
  for (let i = 0; i < ranked.length; i++) if (fact.some((ref) => refMatchesPage(ref, ranked[i]))) return i + 1;
  return null;
}

/** Rank (1-based) of the first file establishing the fact, counting distinct files. */
export function fileRank(fact: readonly SourceRef[], ranked: readonly RankedPage[]): number | null {
  const files: string[] = [];
  for (const p of ranked) if (!files.includes(p.file)) files.push(p.file);
  const wanted = new Set(fact.map((r) => r.file));
  const i = files.findIndex((f) => wanted.has(f));
  return i < 0 ? null : i + 1;
}

export function scoreQuestion(question: EvalQuestion, ranked: readonly RankedPage[]): QuestionScore {
  const fact = question.facts[0] ?? [];
  return { id: question.id, fileRank: fileRank(fact, ranked), pageRank: pageRank(fact, ranked) };
}

export function aggregate(ranks: readonly (number | null)[]): LevelMetrics {
  const n = ranks.length || 1;
  const hit = (k: number) => ranks.filter((r) => r !== null && r <= k).length / n;
  const mrr = ranks.reduce<number>((sum, r) => sum + (r === null ? 0 : 1 / r), 0) / n;
  return { 'hit@1': hit(1), 'hit@5': hit(5), 'hit@10': hit(10), mrr };
}

export interface GroupMetrics {
  questions: number;
  file: LevelMetrics;
  page: LevelMetrics;
}

export function groupMetrics(scores: readonly QuestionScore[]): GroupMetrics {
  return {
    questions: scores.length,
    file: aggregate(scores.map((s) => s.fileRank)),
    page: aggregate(scores.map((s) => s.pageRank)),
  };
}

/** Metrics per value of a question attribute (domain, difficulty…), sorted by key. */
export function metricsBy(questions: readonly EvalQuestion[], scores: readonly QuestionScore[], key: (q: EvalQuestion) => string | null): Record<string, GroupMetrics> {
  const groups = new Map<string, QuestionScore[]>();
  questions.forEach((q, i) => {
    const k = key(q) ?? '(none)';
    const list = groups.get(k);
    if (list) list.push(scores[i]);
    else groups.set(k, [scores[i]]);
  });
  return Object.fromEntries([...groups.keys()].sort().map((k) => [k, groupMetrics(groups.get(k)!)]));
}

/**
 * Which pages are near-identical twins (the index's page twin groups). Lenient metrics count a
 * retrieved page that is a twin of a gold page: the same text in another edition or copy
 * establishes the same fact.
 */
export interface TwinLookup {
  /** The page's twin group, or -1. */
  page(file: string, page: number): number;
  /** Twin groups of every page of the file. */
  fileGroups(file: string): ReadonlySet<number>;
}

/** Twin groups that establish the fact: each ref's page group, or all groups of a whole-file ref. */
export function factGroups(fact: readonly SourceRef[], twins: TwinLookup): Set<number> {
  const groups = new Set<number>();
  for (const ref of fact) {
    if (ref.page === null) for (const g of twins.fileGroups(ref.file)) groups.add(g);
    else {
      const g = twins.page(ref.file, ref.page);
      if (g >= 0) groups.add(g);
    }
  }
  return groups;
}

export function lenientPageRank(fact: readonly SourceRef[], ranked: readonly RankedPage[], twins: TwinLookup): number | null {
  const groups = factGroups(fact, twins);
  for (let i = 0; i < ranked.length; i++) {
    const p = ranked[i];
    if (fact.some((ref) => refMatchesPage(ref, p)) || groups.has(twins.page(p.file, p.page))) return i + 1;
  }
  return null;
}

export function lenientFileRank(fact: readonly SourceRef[], ranked: readonly RankedPage[], twins: TwinLookup): number | null {
  const groups = factGroups(fact, twins);
  const wanted = new Set(fact.map((r) => r.file));
  const files: string[] = [];
  for (const p of ranked) if (!files.includes(p.file)) files.push(p.file);
  const i = files.findIndex((f) => wanted.has(f) || [...twins.fileGroups(f)].some((g) => groups.has(g)));
  return i < 0 ? null : i + 1;
}
