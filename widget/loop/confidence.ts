/**
 * Confidence tiers from grading and grounding:
 * - low: nothing kept, nothing cited, or fewer than GROUNDED_MIN_FRACTION of the answer's claims
 *   supported → the loop retries once, then refuses with the closest clauses;
 * - high: every claim supported and the best kept passage's relevance ≥ HIGH_MIN_RELEVANCE;
 * - medium: the rest → the answer with a caveat line.
 * HIGH_MIN_RELEVANCE is calibrated on dev-v2 (builder/eval/calibrate-grade.ts).
 */
import type { Confidence } from '../answer/types.ts';
import type { Lang } from '../core/schema.ts';
import { strings } from './strings.ts';

/** Below this share of supported claims the answer is not shown as an answer. */
export const GROUNDED_MIN_FRACTION = 0.5;
/**
 * Relevance of the best kept passage for a fully supported answer to be "high". On dev-v2 (grading
 * at 0.375, builder/eval/calibrate-grade.ts) 24 of 109 answerable questions reach it and 10 of those
 * answers cite a gold page (42 %), against 12 of 71 (17 %) in the medium tier; at 0.5 the high
 * tier is 39 answers with 13 citing a gold page (33 %).
 */
export const HIGH_MIN_RELEVANCE = 0.55;

export interface ConfidenceInput {
  /** Relevance of the best kept passage (0 when none was kept). */
  topRelevance: number;
  /** Passages kept by grading. */
  kept: number;
  /** The answer cites at least one real passage. */
  cited: boolean;
  /** Share of the answer's claims supported by the passages they cite. */
  groundedFraction: number;
  /** Override of HIGH_MIN_RELEVANCE (calibration). */
  highMinRelevance?: number;
}

export function confidenceTier(input: ConfidenceInput): Confidence {
  if (input.kept === 0 || !input.cited || input.groundedFraction < GROUNDED_MIN_FRACTION) return 'low';
  if (input.groundedFraction >= 1 && input.topRelevance >= (input.highMinRelevance ?? HIGH_MIN_RELEVANCE)) return 'high';
  return 'medium';
}

/** A medium answer as shown: the answer, then the caveat in the question's language. */
export function withCaveat(text: string, lang: Lang): string {
  return `${text.trimEnd()}\n\n${strings(lang).caveat}`;
}
