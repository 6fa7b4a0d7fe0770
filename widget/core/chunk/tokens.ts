/**
 * A calibrated estimate of how many XLM-R / multilingual-E5 sentencepiece tokens a text costs,
 * for when the real tokenizer is not loaded (offline builds, tests, the browser before the model).
 *
 * Calibration (from the XLM-R 250k unigram vocabulary's behaviour on Hebrew and English prose):
 * - Hebrew words: frequent short words are one piece, words with prefixes (ו/ה/ב/ל/מ/ש/כ) and long
 *   inflected words split into 2–3. Modelled as 1.1 + 0.15 per letter: a 4-letter word ≈ 1.7,
 *   a 6-letter word ≈ 2.0, which averages ~1.7–1.9 pieces per word on policy text.
 * - English words: lowercase words up to 4 letters are one piece, longer ones gain ~0.12 per extra
 *   letter (≈ 1.3 per word on prose). The vocabulary is cased, so ALL-CAPS words split far more
 *   (≈ one piece per 3 letters).
 * - Numbers: one piece per group of up to 3 digits; separators (`,` `.` `/` `-`) one piece each.
 * - Punctuation and symbols: one piece per character (quotes inside ש"ח included); runs of one
 *   mark ("-----", "....") one piece per 8.
 * - Other scripts: one piece per 2 characters.
 * Special tokens (<s>, </s>) and the "passage: " prefix are not counted.
 *
 * How to check it: load the real tokenizer (`AutoTokenizer.from_pretrained` of the E5 model) and
 * compare `tokenizer.encode(text, {add_special_tokens: false}).length` with `estimateTokens(text)`
 * over the corpus chunks; the estimate should stay within ~±15 % on average. Until then the chunker
 * takes `countTokens` from the caller (the build passes the loaded tokenizer's count when it has one).
 */

const WORD = /[\u05D0-\u05EA\u05F0-\u05F4\uFB1D-\uFB4F]+|[A-Za-z]+|[0-9]+|[\u0590-\u05CF]+|([-_.=*])\1+|[^\s]/g;
const HEBREW = /^[\u05D0-\u05EA\u05F0-\u05F4\uFB1D-\uFB4F]/;
const LATIN = /^[A-Za-z]/;
const DIGITS = /^[0-9]/;
const LETTERISH = /^\p{L}/u;

function latinPieces(word: string): number {
  if (word.length > 1 && word === word.toUpperCase()) return Math.max(1, word.length / 3);
  return word.length <= 4 ? 1 : 1 + (word.length - 4) * 0.12;
}

export function estimateTokens(text: string): number {
  let total = 0;
  for (const match of text.matchAll(WORD)) {
    const piece = match[0];
    if (HEBREW.test(piece)) total += 1.1 + 0.15 * piece.length;
    else if (LATIN.test(piece)) total += latinPieces(piece);
    else if (DIGITS.test(piece)) total += Math.ceil(piece.length / 3);
    else if (LETTERISH.test(piece)) total += 0.5;
    // Rules and leaders ("-----", "......") are a few long pieces in the vocabulary.
    else if (piece.length > 1) total += Math.ceil(piece.length / 8);
    else total += 1;
  }
  return Math.ceil(total);
}
