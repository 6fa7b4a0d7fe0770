/**
 * Step: is each sentence of the answer supported by a passage it cites? An engine with
 * `checkSupport` (an LLM) judges all sentences in one call; otherwise lexical support
 * (text/lexical-support.ts): the share of the sentence's content words found in the text of the
 * passages it cites.
 */
import { throwIfAborted } from '../core/errors.ts';
import type { AnswerEngine, GradedPassage } from '../engines/engine.ts';
import { citedPassages, lexicalSupport, SUPPORT_MIN_SHARE, supportedFraction, type SentenceSupport } from '../text/lexical-support.ts';

export { SUPPORT_MIN_SHARE, type SentenceSupport };

export interface GroundResult {
  /** Supported claims / claims, 0 when the answer makes no claim. */
  fraction: number;
  sentences: SentenceSupport[];
  method: 'llm' | 'lexical';
}

/** `sources[m - 1]` is the passage displayed as `[m]` (ParsedCitations.sources). */
export async function groundAnswer(
  text: string,
  sources: readonly GradedPassage[],
  engine: Pick<AnswerEngine, 'checkSupport'>,
  options: { signal?: AbortSignal; minShare?: number } = {},
): Promise<GroundResult> {
  const sentences = lexicalSupport(text, sources, options.minShare ?? SUPPORT_MIN_SHARE);
  let method: GroundResult['method'] = 'lexical';
  if (engine.checkSupport && sentences.length > 0) {
    const verdicts = await engine.checkSupport(
      sentences.map((s) => ({ sentence: s.sentence, sources: citedPassages(s, sources).map((p) => p.context || p.text) })),
      options.signal,
    );
    throwIfAborted(options.signal);
    sentences.forEach((s, i) => (s.supported = s.citations.length > 0 && verdicts[i] === true));
    method = 'llm';
  }
  return { fraction: supportedFraction(sentences), sentences, method };
}
