/**
 * Three decisions from one evidence vector (evidence.ts), each a logistic regression fitted
 * offline on development data with cross-validation (builder/eval/fit-answerability.ts; its
 * coefficients and thresholds are in answerability-weights.ts, written by that script):
 * - offTopic: the question is about something else than the index covers → the off-topic reply;
 * - answerable: the documents hold an answer → below its threshold, a refusal with the closest
 *   clauses;
 * - correct: the answer will cite a page that answers it → at or above its threshold, "high".
 * Two fitted sets: the lexical models every search can feed, and for a hybrid search with the
 * embedder they were fitted on, the same decisions with the question's distance to the corpus
 * added (answerability-weights-hybrid.ts; modelFor picks). Logistic regression because the
 * features are few, the data is small (a few hundred questions per index), and its coefficients
 * can be read and checked; a bigger model would only memorise.
 */
import type { AnswerabilityModel, LogisticModel } from './answerability-model.ts';
import { ANSWERABILITY_WEIGHTS } from './answerability-weights.ts';
import { HYBRID_ANSWERABILITY_WEIGHTS } from './answerability-weights-hybrid.ts';
import type { SearchResult } from '../core/retrieval/retriever.ts';
import type { Evidence, EvidenceVector } from './evidence.ts';

export type { AnswerabilityModel, LogisticModel } from './answerability-model.ts';

export function probability(model: LogisticModel, features: EvidenceVector): number {
  let z = model.bias;
  model.features.forEach((name, i) => {
    z += model.weights[i] * ((features[name] - model.mean[i]) / (model.scale[i] || 1));
  });
  return 1 / (1 + Math.exp(-z));
}

/**
 * The models for a search's evidence: the hybrid set when the search ran hybrid with the embedder
 * that set was fitted on (its cosines mean nothing from another model), else the lexical set, which
 * reads no semantic feature. BM25-only searches, and hybrid ones with any other embedder (the
 * browser tests' tiny one), decide exactly as before the hybrid set existed.
 */
export function modelFor(
  result: Pick<SearchResult, 'mode' | 'semantic'>,
  hybrid: AnswerabilityModel = HYBRID_ANSWERABILITY_WEIGHTS,
  lexical: AnswerabilityModel = ANSWERABILITY_WEIGHTS,
): AnswerabilityModel {
  return result.mode === 'hybrid' && result.semantic != null && hybrid.embedder !== undefined && result.semantic.embedder === hybrid.embedder ? hybrid : lexical;
}

/**
 * Whether a model weighs the similarity of the answer's quote to the question (semQuote): the loop
 * then measures it once the answer has its quote, and decides the tier (and the refusal, where the
 * answerable model reads it: refusalReadsQuote) with it.
 */
export function readsQuote(model: AnswerabilityModel): boolean {
  return refusalReadsQuote(model) || model.correct.features.includes('semQuote');
}

/** Whether the refusal itself waits for the quote (the answerable model reads semQuote). */
export function refusalReadsQuote(model: AnswerabilityModel): boolean {
  return model.answerable.features.includes('semQuote');
}

export interface Assessment {
  /** Probability that the question is about something the index does not cover at all. */
  offTopic: number;
  /** Probability that the documents answer it. */
  answerable: number;
  /** Probability that the answer cites a page that answers it. */
  correct: number;
  isOffTopic: boolean;
  /**
   * Off-topic by the question and its search alone (small talk, or the off-topic model): what the
   * route step may decide before the answer's quote is known. `isOffTopic` adds the refused
   * question the off-topic model leans towards, which waits for the quote's similarity where the
   * answerable model reads it (refusalReadsQuote).
   */
  offTopicAlone: boolean;
  /** Refuse with the closest clauses: the evidence says the documents do not answer. */
  refuse: boolean;
  /** The evidence is strong enough for "high". */
  high: boolean;
}

/**
 * The off-topic probability at or above which a question is off-topic even where the customer's own
 * document answers it best. Measured on the project's off-topic sets (224 questions) with each
 * customer document of builder/eval/device-questions.json added over the Harel site: the customer's
 * answerable questions lie at 0.00–0.97 (most under 0.85), the off-topic questions whose best passage
 * was the customer's mostly at 0.9 and over. Without this cap, 31 (BM25) and 27 (hybrid) of the 224
 * got "not in the documents" instead of the off-topic reply with the English policy added; with it,
 * 6 and none, for fewer of the customer's questions answered from their page (hybrid: 10 of 17 and 3
 * of 14 where it was 12 and 5): docs/evaluation.md#a-customers-own-pdf.
 */
export const OWN_DOCUMENT_MAX_OFF_TOPIC = 0.9;

export function assess(evidence: Pick<Evidence, 'features' | 'ownDocument'>, model: AnswerabilityModel = ANSWERABILITY_WEIGHTS): Assessment {
  const f = evidence.features;
  const offTopic = probability(model.offTopic, f);
  const answerable = probability(model.answerable, f);
  const correct = probability(model.correct, f);
  const guarded = f.insuranceWords !== 0;
  // A question the customer's own document answers best is about their policy (evidence.ts
  // ownDocument), unless the off-topic model is all but sure: a customer's English policy shares
  // everyday words with "what's the best toothpaste?" that the site's Hebrew booklets do not.
  const theirs = evidence.ownDocument === true && offTopic < OWN_DOCUMENT_MAX_OFF_TOPIC;
  const offTopicAlone = !guarded && (f.smallTalk === 1 || (!theirs && offTopic >= model.offTopic.threshold));
  return {
    offTopic,
    answerable,
    correct,
    // A question that names insurance is never "off-topic": it deserves "not in the documents".
    // Small talk is off-topic by its form (small-talk.ts); otherwise the model decides, with a
    // lower bar for a question the evidence already refuses: the only change is the reply's words.
    isOffTopic: offTopicAlone || (!guarded && !theirs && answerable < model.answerable.threshold && offTopic >= model.offTopic.refusedThreshold),
    offTopicAlone,
    refuse: answerable < model.answerable.threshold,
    high: correct >= model.correct.high,
  };
}
