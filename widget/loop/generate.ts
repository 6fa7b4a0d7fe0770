/**
 * Step 5: the engine writes the answer from the kept passages, numbered 1..n as it must cite them.
 */
import { createError, isHarelError } from '../core/errors.ts';
import type { AnswerEngine, GenerateRequest, GenerateResult, GradedPassage } from '../engines/engine.ts';
import type { GradedCandidate } from './grade.ts';

/** Passages given to the engine: a small LLM's context holds about five clauses with their headings. */
export const MAX_GENERATE_PASSAGES = 5;

/** The best kept passages, numbered as `[n]` = passages[n - 1]. */
export function numberPassages(kept: readonly GradedCandidate[], max = MAX_GENERATE_PASSAGES): GradedPassage[] {
  return kept.slice(0, max).map((c, i) => ({ ...c.passage, n: i + 1, relevance: c.relevance }));
}

/** What generation takes: the engine's own request, as the loop fills it. */
export type GenerateInput = GenerateRequest;

export async function generateAnswer(engine: AnswerEngine, input: GenerateInput): Promise<GenerateResult> {
  try {
    const result = await engine.generate(input);
    if (input.signal?.aborted) throw createError('ABORTED');
    return result;
  } catch (error) {
    if (input.signal?.aborted && !isHarelError(error, 'ABORTED')) throw createError('ABORTED');
    throw error;
  }
}
