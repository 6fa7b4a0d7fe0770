/**
 * What text of a question E5 embeds, for the experiments that compare them (experiments/compare-query-text.ts,
 * fit-fusion.ts --query-text). The widget embeds the question as asked.
 */
import { isEnglishStopword, isHebrewStopword } from '../../../widget/core/tokenizer/index.ts';

export type QueryText = 'as-asked' | 'without-function-words';
export const QUERY_TEXTS: readonly QueryText[] = ['as-asked', 'without-function-words'];

/** The question without the tokenizer's Hebrew and English stopwords, each remaining word as typed. */
export function withoutFunctionWords(question: string): string {
  return question
    .split(/\s+/)
    .filter((word) => {
      const bare = word.replace(/[^\p{L}\p{N}"'-]/gu, '');
      return bare !== '' && !isHebrewStopword(bare) && !isEnglishStopword(bare.toLowerCase());
    })
    .join(' ');
}

export function queryText(kind: QueryText): (question: string) => string {
  return kind === 'as-asked' ? (question) => question : withoutFunctionWords;
}
