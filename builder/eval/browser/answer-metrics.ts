/**
 * Scores the widget's answers against a question file: does an answer cite a page that
 * establishes the fact, does it refuse when it should (and only then), and how long it took.
 * Pure: the browser run records answers, this turns them into figures.
 */
import type { Answer } from '../../../widget/answer/types.ts';
import type { EvalQuestion, SourceRef } from '../questions.ts';
import { factGroups, type TwinLookup } from '../metrics.ts';

export interface AnswerRecord {
  id: string;
  question: string;
  domain: string | null;
  difficulty: string | null;
  answerable: boolean;
  answer: Answer | null;
  /** The error code when asking failed. */
  error: string | null;
}

export interface AnswerMetrics {
  questions: number;
  answerable: number;
  unanswerable: number;
  /** Answerable questions whose answer cites a gold page (any fact), of those answered without refusing. */
  citationHitRate: number;
  /** Answerable questions whose answer or closest clauses cite a gold page, of all answerable. */
  citationHitRateAll: number;
  /** Refused although answerable. */
  falseRefusalRate: number;
  /** Refused when unanswerable (higher is better). */
  unanswerableRefusalRate: number;
  errors: number;
  latency: { p50: number; p95: number; max: number };
}

export function citesGold(answer: Pick<Answer, 'citations'>, facts: readonly SourceRef[][], aliases: ReadonlyMap<string, string>): boolean {
  const canonical = (file: string) => aliases.get(file) ?? file;
  const gold = facts.flat();
  return answer.citations.some((c) => gold.some((g) => canonical(g.file) === canonical(c.file) && (g.page === null || g.page === c.page)));
}

/** As citesGold, and a cited page that is a near-identical twin of a gold page counts too. */
export function citesGoldLenient(answer: Pick<Answer, 'citations'>, facts: readonly SourceRef[][], aliases: ReadonlyMap<string, string>, twins: TwinLookup): boolean {
  if (citesGold(answer, facts, aliases)) return true;
  const canonical = (file: string) => aliases.get(file) ?? file;
  const groups = new Set(
    facts.flatMap((f) => [
      ...factGroups(
        f.map((r) => ({ ...r, file: canonical(r.file) })),
        twins,
      ),
    ]),
  );
  return answer.citations.some((c) => groups.has(twins.page(canonical(c.file), c.page)));
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function scoreAnswers(records: readonly AnswerRecord[], questions: readonly EvalQuestion[], aliases: ReadonlyMap<string, string> = new Map()): AnswerMetrics {
  const byId = new Map(questions.map((q) => [q.id, q]));
  const answered = records.filter((r) => r.answer);
  const answerable = answered.filter((r) => r.answerable);
  const unanswerable = answered.filter((r) => !r.answerable);
  const notRefused = answerable.filter((r) => !r.answer!.refused);
  const hit = (r: AnswerRecord) => citesGold(r.answer!, byId.get(r.id)?.facts ?? [], aliases);
  const ratio = (n: number, d: number) => (d === 0 ? 0 : n / d);
  const totals = answered.map((r) => r.answer!.timings.total);
  return {
    questions: records.length,
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    citationHitRate: ratio(notRefused.filter(hit).length, notRefused.length),
    citationHitRateAll: ratio(answerable.filter(hit).length, answerable.length),
    falseRefusalRate: ratio(answerable.filter((r) => r.answer!.refused).length, answerable.length),
    unanswerableRefusalRate: ratio(unanswerable.filter((r) => r.answer!.refused).length, unanswerable.length),
    errors: records.filter((r) => r.error).length,
    latency: { p50: percentile(totals, 50), p95: percentile(totals, 95), max: Math.max(0, ...totals) },
  };
}
