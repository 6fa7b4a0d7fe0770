/**
 * Marks the words of a quoted passage that match the question, by the same tokenizer search
 * uses: "בביטוח" in a passage lights up for "ביטוח" in the question, as it matched in BM25.
 */
import { tokenize } from '../core/tokenizer/index.ts';

export interface HighlightSpan {
  text: string;
  match: boolean;
}

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'"״׳.-]*/gu;

export function highlightSpans(passage: string, question: string): HighlightSpan[] {
  const wanted = new Set(tokenize(question, { forQuery: true }));
  const spans: HighlightSpan[] = [];
  let last = 0;
  const push = (text: string, match: boolean) => {
    const prev = spans[spans.length - 1];
    if (prev && prev.match === match) prev.text += text;
    else spans.push({ text, match });
  };
  for (const m of passage.matchAll(WORD)) {
    const at = m.index ?? 0;
    if (at > last) push(passage.slice(last, at), false);
    const match = wanted.size > 0 && tokenize(m[0]).some((t) => wanted.has(t));
    push(m[0], match);
    last = at + m[0].length;
  }
  if (last < passage.length) push(passage.slice(last), false);
  return spans;
}
