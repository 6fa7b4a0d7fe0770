export { TOKENIZER_VERSION, tokenize, analyze } from './tokenize.ts';
export type { TokenizeOptions, WordTerms } from './tokenize.ts';
export { normalizeText, detectLang } from './normalize.ts';
export { prefixStrippings, HEBREW_PREFIXES, MIN_STEM } from './hebrew-prefixes.ts';
export { HEBREW_STOPWORDS, ENGLISH_STOPWORDS, isHebrewStopword, isEnglishStopword } from './stopwords.ts';
export { englishTerm } from './english.ts';
