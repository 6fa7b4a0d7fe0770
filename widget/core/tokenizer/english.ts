/** English (and other Latin-script) words: lower-cased, possessive dropped, Porter-stemmed. */
import { stemmer } from 'stemmer';
import { isEnglishStopword } from './stopwords.ts';

/** The index term for one Latin-script word, or null when it carries no meaning for BM25. */
export function englishTerm(word: string): string | null {
  const lower = word.toLowerCase().replace(/'s$/, '').replace(/'/g, '');
  if (lower.length < 2 || isEnglishStopword(lower)) return null;
  // Stemming words with digits (covid19, b2b) or non-ASCII letters only breaks them.
  if (!/^[a-z]+$/.test(lower)) return lower;
  return stemmer(lower);
}
