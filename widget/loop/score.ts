/**
 * Step: how far the grounded answer can be trusted. The similarity of its first quote to the
 * question (evidence.ts semQuote: one more embedding in the search worker, only where the models
 * read it and the search ran hybrid; else the evidence keeps 0, as the models were fitted), the
 * assessment with it, the confidence tier (confidence.ts), whether a follow-up only repeats the
 * previous answer (repeated-answer.ts), and the caveat a medium answer carries.
 */
import type { Answer, ChatTurn, Citation, Confidence } from '../answer/types.ts';
import type { SearchService } from '../search/search-service.ts';
import { leadMissesAsked } from '../text/facts.ts';
import type { QuestionReading } from '../text/question-reading.ts';
import { readsQuote } from './answerability.ts';
import { withQuoteSimilarity, type SearchAssessment } from './assess.ts';
import type { ParsedCitations } from './citations.ts';
import { confidenceTier, withCaveat } from './confidence.ts';
import { quoteHead } from './evidence.ts';
import type { GradeResult } from './grade.ts';
import type { GroundResult } from './ground.ts';
import { repeatsPreviousAnswer } from './repeated-answer.ts';

export interface ScoreInput {
  reading: QuestionReading;
  question: string;
  history: readonly ChatTurn[];
  followUp: boolean;
  judged: SearchAssessment;
  grade: GradeResult;
  parsed: ParsedCitations;
  ground: GroundResult;
  citations: Citation[];
  /** The searched query, as the search service embeds it for the quote's similarity. */
  query: string;
  searchMode: Answer['searchMode'];
}

export interface Scored {
  /** The assessment with the quote weighed (the same object when it was not). */
  judged: SearchAssessment;
  confidence: Confidence;
  /** The evidence says the documents do not answer, or the follow-up only repeats: refuse without a retry. */
  notAnswerable: boolean;
  /** The answer's text as shown (with the caveat of a medium answer); null when it is not shown. */
  text: string | null;
}

/** Whether the answer's first quote misses what the question asks for (facts.ts). */
function leadMissesAskedFact(reading: QuestionReading, first: Citation | undefined): boolean {
  if (!first?.quote) return false;
  const { asking, askedTerms } = reading;
  return first.quote.split(' … ').some((q) => leadMissesAsked(q, asking.text, asking.type, askedTerms, first.sectionPath));
}

/** The first quote's similarity to the question, where the models read it and the search ran hybrid; null elsewhere. */
async function quoteSimilarity(search: SearchService, input: ScoreInput, signal?: AbortSignal): Promise<number | null> {
  const quote = input.citations[0]?.quote;
  const similarity = search.similarity;
  if (!quote || !readsQuote(input.judged.model) || input.searchMode !== 'hybrid' || !similarity) return null;
  return similarity.call(search, input.query, quoteHead(quote), signal);
}

export async function scoreAnswer(search: SearchService, input: ScoreInput, signal?: AbortSignal): Promise<Scored> {
  const similarity = await quoteSimilarity(search, input, signal);
  const judged = similarity === null ? input.judged : withQuoteSimilarity(input.judged, similarity);
  const { parsed, ground, grade } = input;
  const tier = confidenceTier({
    kept: grade.kept.length,
    cited: parsed.grounded,
    groundedFraction: parsed.grounded ? ground.fraction : 0,
    assessment: judged.assessment,
    // An LLM that graded the passages has judged answerability itself.
    llmGraded: grade.method === 'llm',
    leadMissesAskedFact: leadMissesAskedFact(input.reading, input.citations[0]),
  });
  // A follow-up quoting only what the previous answer quoted found nothing of what it added (repeated-answer.ts).
  const repeats = input.followUp && repeatsPreviousAnswer(input.question, input.history, input.citations);
  const notAnswerable = tier === 'refuse' || repeats;
  const confidence = notAnswerable ? 'low' : tier;
  const text = confidence === 'low' ? null : confidence === 'medium' ? withCaveat(parsed.text, input.reading.lang) : parsed.text;
  return { judged, confidence, notAnswerable, text };
}
