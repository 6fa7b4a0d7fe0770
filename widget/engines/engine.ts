/**
 * The one interface both answer engines implement: the extractive answerer (no model, any
 * device) and the WebLLM engine (Gemma on WebGPU). The loop calls only this.
 */
import type { AnswerMode, ChatTurn } from '../answer/types.ts';
import type { Lang } from '../core/schema.ts';
import type { ContextPassage } from '../search/search-service.ts';
import type { QuestionReading } from '../text/question-reading.ts';

/** A passage that passed grading, numbered as the engine must cite it: `[n]` = passages[n - 1]. */
export interface GradedPassage extends ContextPassage {
  /** 1-based source number. */
  n: number;
  /** Grading score in [0, 1]: how well the passage answers the question. */
  relevance: number;
}

export interface GenerateRequest {
  /** The question as typed. */
  question: string;
  /**
   * The question's one reading (text/question-reading.ts): what it asks, as typed and as searched (a
   * follow-up's question with the previous one's words: "ומה לגבי רכב?" alone says little). Engines
   * read it rather than the question's text, so nothing is read twice.
   */
  reading: QuestionReading;
  lang: Lang;
  passages: GradedPassage[];
  history: ChatTurn[];
  signal?: AbortSignal;
  /** Streaming: called with the text so far after each token (or sentence, for extractive). */
  onText?: (textSoFar: string) => void;
}

export interface GenerateResult {
  /** The answer with `[n]` markers referring to `passages[n - 1]`. */
  text: string;
  /** For the extractive engine: the verbatim sentence quoted per marker number. */
  quotes?: Map<number, string>;
}

export interface AnswerEngine {
  readonly mode: AnswerMode;
  generate(request: GenerateRequest): Promise<GenerateResult>;
  /**
   * LLM grading: is each passage relevant to the question? One batched prompt. Engines without it
   * leave grading to the calibrated score threshold.
   */
  gradePassages?(question: string, passages: readonly ContextPassage[], signal?: AbortSignal): Promise<boolean[]>;
  /**
   * LLM ground check: is each sentence supported by the passages it cites? Engines without it
   * leave the check to lexical support.
   */
  checkSupport?(claims: readonly { sentence: string; sources: string[] }[], signal?: AbortSignal): Promise<boolean[]>;
}
