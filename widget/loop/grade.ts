/**
 * Step 4: is each retrieved passage relevant to the question? An engine with `gradePassages` (an
 * LLM) decides in one batched call; without one, a threshold on a normalised relevance feature.
 *
 * BM25 scores are not comparable across queries, so the feature is built from two normalised
 * parts: the IDF-weighted share of the question's content words the passage contains (IDF over
 * the retrieved passages, see terms.ts: a word no passage has weighs most), and the passage's
 * score relative to the top hit. The thresholds are calibrated on dev-v2 by
 * builder/eval/calibrate-grade.ts; the figures are beside each constant.
 */
import { throwIfAborted } from '../core/errors.ts';
import type { AnswerEngine } from '../engines/engine.ts';
import type { ContextPassage } from '../search/search-service.ts';
import { contentWords, coverage, localIdf, termSet } from './terms.ts';

/** Weight of coverage against the relative score in `relevance`. */
export const COVERAGE_WEIGHT = 0.75;

/**
 * Minimum relevance for a passage to be kept (threshold grading). Calibrated on dev-v2 (109
 * answerable, 12 unanswerable; BM25 index of the whole corpus; extractive engine; the full loop
 * with its one broader retry), builder/eval/calibrate-grade.ts, 2026-11-22:
 *   threshold  refused answerable  refused unanswerable  answer cites a gold page  kept passages on a gold page
 *   0.30        1.8 %               0 %                  16.5 %                    11.9 % of 615
 *   0.35        5.5 %              25 %                  18.3 %                    14.1 % of 418
 *   0.375      12.8 %              50 %                  20.2 %                    17.0 % of 312
 *   0.40       22.0 %              50 %                  18.3 %                    19.6 % of 235
 * 0.375 refuses half the unanswerable questions for one answerable in eight, and its answers cite
 * a gold page most often. The unanswerable questions of dev-v2 are on-topic by construction (their
 * subject is insurance, their detail absent), so lexical grading separates them only partly.
 */
export const GRADE_MIN_RELEVANCE = 0.375;

export interface GradedCandidate {
  passage: ContextPassage;
  /** In [0, 1]: COVERAGE_WEIGHT × coverage + the rest × score relative to the top hit. */
  relevance: number;
  /** IDF-weighted share of the question's content words found in the passage. */
  coverage: number;
  kept: boolean;
}

export interface GradeResult {
  /** Every passage with its features, in retrieval order. */
  candidates: GradedCandidate[];
  /** The kept ones, best relevance first. */
  kept: GradedCandidate[];
  method: 'llm' | 'threshold';
}

export interface GradeOptions {
  minRelevance?: number;
  signal?: AbortSignal;
}

/** The text a passage is matched on: what BM25 saw (body, title, section path) widened to its context. */
export function passageMatchText(p: ContextPassage): string {
  return [p.title, ...p.sectionPath, p.context || p.text].join('\n');
}

/** The normalised features of each passage for `question` (pure; the calibration script sweeps these). */
export function gradeFeatures(question: string, passages: readonly ContextPassage[]): Omit<GradedCandidate, 'kept'>[] {
  const words = contentWords(question);
  const sets = passages.map((p) => termSet(passageMatchText(p)));
  const idf = localIdf(words, sets);
  const top = passages.reduce((m, p) => Math.max(m, p.score), 0);
  return passages.map((passage, i) => {
    const cov = coverage(words, sets[i], idf);
    const rel = top > 0 ? passage.score / top : 0;
    return { passage, coverage: cov, relevance: COVERAGE_WEIGHT * cov + (1 - COVERAGE_WEIGHT) * rel };
  });
}

export async function gradePassages(
  question: string,
  passages: readonly ContextPassage[],
  engine: Pick<AnswerEngine, 'gradePassages'>,
  options: GradeOptions = {},
): Promise<GradeResult> {
  const features = gradeFeatures(question, passages);
  let verdicts: boolean[];
  let method: GradeResult['method'] = 'threshold';
  if (engine.gradePassages && passages.length > 0) {
    verdicts = await engine.gradePassages(question, passages, options.signal);
    throwIfAborted(options.signal);
    method = 'llm';
  } else {
    const min = options.minRelevance ?? GRADE_MIN_RELEVANCE;
    verdicts = features.map((f) => f.relevance >= min);
  }
  const candidates = features.map((f, i) => ({ ...f, kept: verdicts[i] === true }));
  const kept = candidates.filter((c) => c.kept).sort((a, b) => b.relevance - a.relevance);
  return { candidates, kept, method };
}
