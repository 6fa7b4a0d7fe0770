/**
 * The report's figures for a set of scored questions: overall, and the same figures per domain,
 * difficulty and language of the question.
 */
import type { AnswerTimings } from '../../../widget/answer/types.ts';
import { aggregate, type LevelMetrics } from '../metrics.ts';
import { percentile } from './answer-metrics.ts';
import type { ScoredQuestion } from './score-question.ts';
import { reliabilityTable, type TierReliability } from './reliability.ts';

export const STAGES = ['assess', 'embed', 'search', 'grade', 'generate', 'ground', 'total'] as const satisfies readonly (keyof AnswerTimings)[];

export interface Summary {
  questions: number;
  answerable: number;
  unanswerable: number;
  errors: number;
  /** Questions with no failure (see score-question.ts). */
  passRate: number;
  retrieval: { file: LevelMetrics; page: LevelMetrics; fileLenient: LevelMetrics; pageLenient: LevelMetrics };
  citations: {
    /** Share of all citations whose file, page and quote are found in the index. */
    validity: number;
    count: number;
    /** Answerable, answered without refusing, and a gold page is cited. */
    hitRate: number;
    /** Answerable (refusals included, their closest clauses count), and a gold page is cited. */
    hitRateAll: number;
    /** As hitRateAll, a near-identical twin of a gold page counting as gold. */
    hitRateAllLenient: number;
  };
  /** Per confidence tier: answers and the share citing a gold page (reliability.ts). */
  reliability: TierReliability[];
  refusals: {
    falseRefusalRate: number;
    unanswerableRefusalRate: number;
    /** Share of all questions refused with the off-topic reply (for an off-topic set, the figure that counts). */
    offTopicRate: number;
  };
  /** Mean token F1 over answerable questions with a reference answer; null when none has one. */
  f1: number | null;
  judge: number | null;
  latency: Record<(typeof STAGES)[number], { p50: number; p95: number }>;
}

const ratio = (n: number, d: number) => (d === 0 ? 0 : n / d);
const mean = (xs: readonly number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null);

export function summarize(scored: readonly ScoredQuestion[]): Summary {
  const answerable = scored.filter((s) => s.answerable);
  const unanswerable = scored.filter((s) => !s.answerable);
  const answered = answerable.filter((s) => s.refused === false);
  const citations = scored.flatMap((s) => s.citations);
  const timed = scored.filter((s) => s.timings);
  const latency = Object.fromEntries(
    STAGES.map((stage) => {
      const values = timed.map((s) => s.timings![stage]);
      return [stage, { p50: percentile(values, 50), p95: percentile(values, 95) }];
    }),
  ) as Summary['latency'];
  const numbers = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
  return {
    questions: scored.length,
    answerable: answerable.length,
    unanswerable: unanswerable.length,
    errors: scored.filter((s) => s.error).length,
    passRate: ratio(scored.filter((s) => s.failures.length === 0).length, scored.length),
    retrieval: {
      file: aggregate(answerable.map((s) => s.fileRank)),
      page: aggregate(answerable.map((s) => s.pageRank)),
      fileLenient: aggregate(answerable.map((s) => s.fileRankLenient)),
      pageLenient: aggregate(answerable.map((s) => s.pageRankLenient)),
    },
    citations: {
      validity: citations.length ? ratio(citations.filter((c) => !c.problem).length, citations.length) : 1,
      count: citations.length,
      hitRate: ratio(answered.filter((s) => s.citationHit).length, answered.length),
      hitRateAll: ratio(answerable.filter((s) => s.citationHit).length, answerable.length),
      hitRateAllLenient: ratio(answerable.filter((s) => s.citationHitLenient).length, answerable.length),
    },
    reliability: reliabilityTable(scored),
    refusals: {
      falseRefusalRate: ratio(answerable.filter((s) => s.refused).length, answerable.length),
      unanswerableRefusalRate: ratio(unanswerable.filter((s) => s.refused).length, unanswerable.length),
      offTopicRate: ratio(scored.filter((s) => s.refusal === 'off-topic').length, scored.length),
    },
    f1: mean(numbers(answerable.map((s) => s.f1))),
    judge: mean(numbers(scored.map((s) => s.judge))),
    latency,
  };
}

export function summarizeBy(scored: readonly ScoredQuestion[], key: (s: ScoredQuestion) => string | null): Record<string, Summary> {
  const groups = new Map<string, ScoredQuestion[]>();
  for (const s of scored) {
    const k = key(s) ?? '(none)';
    groups.set(k, [...(groups.get(k) ?? []), s]);
  }
  return Object.fromEntries([...groups.keys()].sort().map((k) => [k, summarize(groups.get(k)!)]));
}
