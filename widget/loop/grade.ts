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
import { GRADE_MIN_RELEVANCE } from './grade-thresholds.ts';
import { passageMatchText } from '../text/passage-text.ts';
import { contentWords, coverage, localIdf, termSet, type Word } from '../text/terms.ts';

/*
 * Word weights come from the retrieved passages, not the whole index. Measured with
 * builder/eval/calibrate-grade.ts on dev-v2 (109 answerable / 12 unanswerable), 2026-11-22,
 * refused answerable / refused unanswerable / answer cites a gold page:
 *   idf over the passages, threshold 0.375:                        11.9 % / 50.0 % / 20.2 %
 *   BM25 idf over the whole index (absent words at the max), 0.4: 13.8 % / 41.7 % / 21.1 %
 *   the same, threshold 0.5:                                       53.2 % / 75.0 % / 18.3 %
 * The index's statistics separate the demo corpus's off-subject questions far better (3 of 4
 * refused at 0.5, against 0 of 4), but on the real corpus they cost answerable questions for no
 * gain. A gate requiring the question's rarest indexed words in a kept passage was worse still
 * (2 words: 63 % of answerable questions refused). Both were removed.
 */

/** Weight of coverage against the relative score in `relevance`. */
export const COVERAGE_WEIGHT = 0.75;

/**
 * Minimum relevance for a passage to be kept (threshold grading). Below it nothing is quoted, so it
 * also refuses; the refusals on evidence are the fitted answerability model's (answerability.ts),
 * and the threshold only keeps passages no answer should quote. Measured on dev-v2 (109
 * answerable, 12 unanswerable; BM25 index of the whole corpus; extractive engine; the full loop),
 * builder/eval/calibrate-grade.ts then the held-out folds of builder/eval/fit-answerability.ts,
 * 2026-11-23 — refused answerable / refused unanswerable / "high" right / answerable citing a
 * page that answers, all with the fitted model on top:
 *   0.30    1.8 %   0 of 12   9 of 13   35.8 %
 *   0.35    4.6 %   3 of 12   8 of 10   35.8 %
 *   0.375  11.0 %   5 of 12   8 of 11   33.9 %
 * The unanswerable questions of dev-v2 are on-topic by construction (their subject is insurance,
 * their detail absent): lexical evidence separates them only partly, and each one refused costs
 * about two answerable ones. 0.35 keeps false refusals well under one in ten.
 */
export { GRADE_MIN_RELEVANCE };

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
  /** Features already computed for these passages (the loop's assess step needs them first). */
  features?: Omit<GradedCandidate, 'kept'>[];
  signal?: AbortSignal;
}

/** The normalised features of each passage for the question's content `words` (pure; the calibration script sweeps these). */
export function gradeFeatures(words: readonly Word[], passages: readonly ContextPassage[]): Omit<GradedCandidate, 'kept'>[] {
  const sets = passages.map((p) => termSet(passageMatchText(p)));
  const idf = localIdf(words, sets);
  const top = passages.reduce((m, p) => Math.max(m, p.score), 0);
  return passages.map((passage, i) => {
    const cov = coverage(words, sets[i], idf);
    const rel = top > 0 ? passage.score / top : 0;
    return { passage, coverage: cov, relevance: COVERAGE_WEIGHT * cov + (1 - COVERAGE_WEIGHT) * rel };
  });
}

export async function gradePassages(question: string, passages: readonly ContextPassage[], engine: Pick<AnswerEngine, 'gradePassages'>, options: GradeOptions = {}): Promise<GradeResult> {
  const features = options.features ?? gradeFeatures(contentWords(question), passages);
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
