/**
 * A follow-up that adds words of its own ("ומה לגבי אופנוע?", "and for my kids?") yet quotes only
 * clauses the previous answer quoted, none with its own words in them: it was searched as the
 * previous question narrowed (analyze.ts), the carried words outweighed its own, and the documents
 * said nothing of what it added. Shown, it would repeat the previous answer word for word as
 * though it answered the new question; the loop refuses it instead, with the closest clauses.
 *
 * A follow-up that adds nothing ("ומה לגבי ביטוח בריאות?" after a health-insurance question)
 * asks the same thing again, and the same answer is its answer.
 */
import type { ChatTurn, Citation } from '../answer/types.ts';
import { previousQuery } from './analyze.ts';
import { withoutContinuation } from '../text/follow-up-cues.ts';
import { contentWords, termSet, wordFound } from '../text/terms.ts';

/** The previous turn's answer, when it was one (not a refusal, not stopped) and quoted something. */
function previousCitations(history: readonly ChatTurn[]): readonly Citation[] | null {
  const turn = history.at(-1);
  if (turn?.role !== 'assistant' || !turn.answer || turn.answer.refused || turn.answer.citations.length === 0) return null;
  return turn.answer.citations;
}

/** Each quoted sentence of the citations, with its page (a quote joins sentences with " … "). */
function quotedSentences(citations: readonly Citation[]): string[] {
  return citations.flatMap((c) => c.quote.split(' … ').map((sentence) => `${c.file}\u0000${c.page}\u0000${sentence.trim()}`));
}

/**
 * Whether the follow-up `question` (asked after `history`) is answered by the previous answer
 * again: it adds words the previous question did not have, none of them is in what `citations`
 * quote, and every sentence they quote the previous answer quoted.
 */
export function repeatsPreviousAnswer(question: string, history: readonly ChatTurn[], citations: readonly Citation[]): boolean {
  const before = previousCitations(history);
  if (!before || citations.length === 0) return false;
  const asked = termSet(previousQuery(history) ?? '');
  const added = contentWords(withoutContinuation(question)).filter((w) => !wordFound(w, asked));
  if (added.length === 0) return false;
  const quoted = termSet(citations.map((c) => c.quote).join('\n'));
  if (added.some((w) => wordFound(w, quoted))) return false;
  const earlier = new Set(quotedSentences(before));
  return quotedSentences(citations).every((s) => earlier.has(s));
}
