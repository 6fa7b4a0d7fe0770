/**
 * Direction per message, by its language: a Hebrew answer in an English page is still read right
 * to left, and an English question in a Hebrew page left to right.
 *
 * Every element that holds a message's text gets an explicit `dir` from here rather than
 * `unicode-bidi: plaintext`: an answer line often opens with a quote isolated in a `<bdi>`, and an
 * isolate counts as neutral when a paragraph's direction is found, so such a Hebrew line fell back
 * to left to right.
 */
import { answerLang } from '../text/answer-lang.ts';
import { detectLang } from '../core/tokenizer/index.ts';
import type { Lang } from '../core/schema.ts';

export type Direction = 'rtl' | 'ltr';

export function textDirection(text: string): Direction {
  return detectLang(text) === 'he' ? 'rtl' : 'ltr';
}

export function langDirection(lang: Lang): Direction {
  return lang === 'he' ? 'rtl' : 'ltr';
}

/**
 * The language of text by its letters, or null when it has none ("250", "$1,000 – $2,000"): such
 * text reads in the direction of the line around it, as a Hebrew reader expects a range to.
 */
export function textLang(text: string): Lang | null {
  return /\p{L}/u.test(text) ? detectLang(text) : null;
}

/**
 * The language an answer's lines are in: the answer's own once it is complete, else (while it is
 * written, or stopped before it was) the one the loop gives its question.
 */
export function answerLanguage(answer: { lang: Lang } | undefined, question: string, ui: Lang): Lang {
  return answer?.lang ?? answerLang(question, ui);
}
