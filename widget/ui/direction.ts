/**
 * Direction per message, by its script: a Hebrew answer in an English page is still read right
 * to left, and an English question in a Hebrew page left to right.
 */
import { detectLang } from '../core/tokenizer/index.ts';
import type { Lang } from '../core/schema.ts';

export function textDirection(text: string): 'rtl' | 'ltr' {
  return detectLang(text) === 'he' ? 'rtl' : 'ltr';
}

export function langDirection(lang: Lang): 'rtl' | 'ltr' {
  return lang === 'he' ? 'rtl' : 'ltr';
}
