/** The language an answer is written in, from its question: the loop's and the view's one rule. */
import type { Lang } from '../core/schema.ts';
import { detectLang } from '../core/tokenizer/index.ts';

/** The question's own language; the interface language only when it has no Hebrew or Latin letters to tell by. */
export function answerLang(question: string, interfaceLang: Lang | 'auto' = 'auto'): Lang {
  if (interfaceLang !== 'auto' && !/[\u05D0-\u05EAA-Za-z\u00C0-\u024F]/.test(question)) return interfaceLang;
  return detectLang(question);
}
