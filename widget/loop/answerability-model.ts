/**
 * The shape of the answerability models (answerability.ts reads them; answerability-weights.ts,
 * written by builder/eval/fit-answerability.ts, holds the fitted ones): a type of its own so the
 * weights depend on the model's type and not on the code that runs it.
 */
import type { EvidenceFeature } from './evidence.ts';

export interface LogisticModel {
  features: readonly EvidenceFeature[];
  /** Standardisation fitted with the weights: x' = (x - mean) / scale. */
  mean: readonly number[];
  scale: readonly number[];
  weights: readonly number[];
  bias: number;
}

export interface AnswerabilityModel {
  version: number;
  /**
   * Models that read semantic features (evidence.ts, SEMANTIC_FEATURES): the embedder whose
   * cosines they were fitted on. Absent from models that read the lexical features only.
   */
  embedder?: string;
  /**
   * `threshold` flags any question; `refusedThreshold` (≤ threshold) flags a question the
   * answerable model refuses anyway.
   */
  offTopic: LogisticModel & { threshold: number; refusedThreshold: number };
  answerable: LogisticModel & { threshold: number };
  correct: LogisticModel & { high: number };
}
