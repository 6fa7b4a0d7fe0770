/**
 * Confidence tiers from grounding and the fitted answerability models (answerability.ts):
 * - low: nothing kept, nothing cited, or fewer than GROUNDED_MIN_FRACTION of the answer's claims
 *   supported → the loop retries once, then refuses with the closest clauses;
 * - refuse: the evidence says the documents do not answer → the refusal with the closest clauses
 *   at once (a broader search would only find more of the same). Not applied when an LLM graded
 *   the passages: it judged relevance itself;
 * - high: every claim supported and the correctness model at or above its fitted threshold,
 *   chosen so that "high" answers cite a page that answers the question at least 80 % of the
 *   time on held-out folds (builder/eval/fit-answerability.ts), unless the answer's first quote
 *   misses what is asked (a housing allowance for "what is the deductible?" is wrong however
 *   well the rest of it is supported);
 * - medium: the rest → the answer with a caveat line.
 */
import type { Confidence } from '../answer/types.ts';
import type { Lang } from '../core/schema.ts';
import type { Assessment } from './answerability.ts';
import { strings } from '../text/strings.ts';

/** Below this share of supported claims the answer is not shown as an answer. */
export const GROUNDED_MIN_FRACTION = 0.5;

export interface ConfidenceInput {
  /** Passages kept by grading. */
  kept: number;
  /** The answer cites at least one real passage. */
  cited: boolean;
  /** Share of the answer's claims supported by the passages they cite. */
  groundedFraction: number;
  assessment: Pick<Assessment, 'refuse' | 'high'>;
  /** The passages were graded by an LLM, which has judged answerability itself. */
  llmGraded?: boolean;
  /** The answer's first quote misses what the question asks for (facts.ts `leadMissesAsked`). */
  leadMissesAskedFact?: boolean;
}

export function confidenceTier(input: ConfidenceInput): Confidence | 'refuse' {
  if (input.kept === 0 || !input.cited || input.groundedFraction < GROUNDED_MIN_FRACTION) return 'low';
  if (input.assessment.refuse && !input.llmGraded) return 'refuse';
  if (input.groundedFraction >= 1 && input.assessment.high && !input.leadMissesAskedFact) return 'high';
  return 'medium';
}

/** A medium answer as shown: the answer, then the caveat in the question's language. */
export function withCaveat(text: string, lang: Lang): string {
  return `${text.trimEnd()}\n\n${strings(lang).caveat}`;
}
