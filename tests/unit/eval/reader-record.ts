/** One question's reader record for tests (builder/eval/reader-eval.ts), with `over` on top. */
import type { ReaderEvalRecord } from '../../../builder/eval/reader-eval.ts';

export const readerRecord = (over: Partial<ReaderEvalRecord>): ReaderEvalRecord => ({
  id: 'q',
  answerable: true,
  verdict: 'span',
  span: null,
  reason: null,
  calls: 1,
  ms: 1000,
  noAnswerProbability: 0.1,
  answerableProbability: 0.8,
  correctProbability: 0.6,
  f1: null,
  exact: null,
  refused: false,
  confidence: 'medium',
  citesGold: true,
  ...over,
});
