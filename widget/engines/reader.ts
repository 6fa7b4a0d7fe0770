/**
 * The reader: a model that reads one short passage for one question and replies with the span of
 * the passage that answers it, verbatim, or a fixed "not in this passage" reply. Gemma 3 270M
 * fine-tuned for exactly this (training/reader/README.md) runs it in the GGUF engine
 * (engines/gguf/gguf-reader.ts); the loop (loop/read.ts) decides which passages it reads and what
 * its replies change.
 */

/** One call: a question and the passage window to read (the prompt's budget cuts both). */
export interface ReaderCall {
  question: string;
  passage: string;
  signal?: AbortSignal;
}

/** The model's reply to one call. */
export interface ReaderReply {
  /** The reply as written (normalized spaces), before any check against the passage. */
  text: string;
  /** The reply is the no-answer string (training/reader/prompt_format.py NO_ANSWER). */
  noAnswer: boolean;
  /** The probability of the no-answer reply's first token at the reply's first position, where the engine reports it. */
  noAnswerProbability: number | null;
  /** The passage as the prompt held it (cut to the budget): a span is checked against this. */
  passageRead: string;
  promptTokens: number;
  ms: number;
}

/** Reader calls per answer unless the page says otherwise (reader-calls): each is seconds on a 2-core CPU. */
export const DEFAULT_READER_CALLS = 2;

export interface PassageReader {
  /** The reader's model, e.g. "gemma-3-270m-harel-reader". */
  readonly modelId: string;
  /** "WebAssembly, 2 threads (cross-origin isolated page)": for the details panel. */
  readonly description: string;
  read(call: ReaderCall): Promise<ReaderReply>;
  /** Frees the model's memory (the file stays cached). */
  unload(): Promise<void>;
}
