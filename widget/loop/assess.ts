/**
 * Step: what the search's evidence says, decided once per search. The grading features of the
 * retrieved passages, the evidence the fitted models read (evidence.ts), the models that decide
 * this question (answerability.ts modelFor) and their assessment; and whether the question is
 * off-topic, which is the one verdict here that may wait: where the refusal reads the answer's
 * quote (refusalReadsQuote), a question the off-topic model only leans towards is decided once that
 * quote is weighed (the score step), by the same function.
 */
import type { TextReading } from '../text/question-reading.ts';
import { assess, modelFor, refusalReadsQuote, type AnswerabilityModel, type Assessment } from './answerability.ts';
import { computeEvidence, type Evidence } from './evidence.ts';
import { gradeFeatures } from './grade.ts';
import type { Retrieved } from './retrieve.ts';

export interface SearchAssessment {
  /** Grading features of the retrieved passages: grading reads the same. */
  features: ReturnType<typeof gradeFeatures>;
  evidence: Evidence;
  /** The models that decide this question (the tuning's, else the ones its search's evidence calls for). */
  model: AnswerabilityModel;
  assessment: Assessment;
}

/** The evidence of one search for the searched question's reading, and what the models make of it. */
export function assessSearch(searched: TextReading, retrieved: Retrieved, options: { fixedDomain?: string | null; model?: AnswerabilityModel } = {}): SearchAssessment {
  const { response, passages } = retrieved;
  const features = gradeFeatures(searched.words, passages);
  const evidence = computeEvidence({ query: searched, response, passages, graded: features, fixedDomain: options.fixedDomain });
  const model = options.model ?? modelFor(response.result);
  return { features, evidence, model, assessment: assess(evidence, model) };
}

/**
 * Whether the question is off-topic, at the search (`'search'`: where the refusal waits for the
 * answer's quote, only what the question and its search say alone) or once the answer is scored
 * (`'answer'`: the whole assessment, with the quote weighed where it could be). A retried search
 * never makes a question off-topic: the first search did not.
 */
export function offTopicVerdict(judged: Pick<SearchAssessment, 'model' | 'assessment'>, stage: 'search' | 'answer', retried: boolean): boolean {
  if (retried) return false;
  if (stage === 'answer' || !refusalReadsQuote(judged.model)) return judged.assessment.isOffTopic;
  return judged.assessment.offTopicAlone;
}

/** The same search's evidence with the answer's quote weighed (semQuote), assessed again; the input is not changed. */
export function withQuoteSimilarity(judged: SearchAssessment, similarity: number): SearchAssessment {
  const evidence: Evidence = { ...judged.evidence, features: { ...judged.evidence.features, semQuote: similarity } };
  return { ...judged, evidence, assessment: assess(evidence, judged.model) };
}
