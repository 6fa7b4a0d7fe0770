/**
 * Document text inside an answer, kept apart from what the answer engine wrote.
 *
 * An answer's `text` is one string: the engine's words, its `[n]` citation markers and a little
 * markdown, with sentences quoted from the documents in between. A document can hold "[1]" or
 * "[2] [99]" of its own (a footnote, a list), "**" or bidi controls; read as the engine's, those
 * became live citation buttons, were renumbered or removed as invented citations, or reordered
 * the text around them. So every piece of document text an engine puts in an answer goes through
 * `documentText`, which gives it a form no marker reader can mistake:
 *
 * - it is wrapped in U+2068 FIRST STRONG ISOLATE … U+2069 POP DIRECTIONAL ISOLATE. These are
 *   Unicode's own "this run is separate text with its own direction" marks, so the answer reads
 *   right in any plain-text consumer (an `ask()` caller, the clipboard) as well; the renderer turns
 *   the run into a `<bdi>` of plain text, and citation parsing skips it;
 * - bidi controls inside it are removed (core/bidi-controls.ts: so a document can neither forge
 *   the isolate nor reverse text), and line breaks become spaces (a run is one line of a quote);
 * - every `[` in it is followed by U+2060 WORD JOINER, an invisible character that no marker
 *   pattern (`\[\s*\d`) accepts, so code that reads markers without knowing about runs (grounding,
 *   the evals' answer overlap) still never sees one in document text. The renderer removes it; the
 *   search tokenizer drops it (core/tokenizer/normalize.ts), so scores are unchanged.
 *
 * Only engines write runs: the LLM's output has its bidi controls removed before it is used
 * (engines/webllm/webllm-engine.ts), so a model cannot open a run around its own markers either.
 */
import { stripBidiControls } from '../core/bidi-controls.ts';

export const RUN_OPEN = '\u2068';
export const RUN_CLOSE = '\u2069';
const JOINER = '\u2060';

/** `text` from a document, in the form an answer carries it. */
export function documentText(text: string): string {
  const clean = stripBidiControls(text)
    .replace(/\r\n?|\n|\u2028|\u2029/g, ' ')
    .replace(/\[\u2060?/g, `[${JOINER}`);
  return `${RUN_OPEN}${clean}${RUN_CLOSE}`;
}

/** A piece of an answer's text: the engine's own (markers, markdown) or a document's (plain text). */
export interface AnswerSegment {
  kind: 'engine' | 'document';
  /** For 'document': the run's content as stored (joiners in, isolate marks out). */
  text: string;
}

/**
 * `text` cut into engine and document segments, in order; joining them back with `joinSegments`
 * gives `text` again. A run left open (a truncated stream) is document text to the end of `text`;
 * a stray closing mark is kept in the engine text (the renderer removes bidi controls there).
 */
export function answerSegments(text: string): AnswerSegment[] {
  const out: AnswerSegment[] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf(RUN_OPEN, at);
    if (open < 0) {
      out.push({ kind: 'engine', text: text.slice(at) });
      break;
    }
    if (open > at) out.push({ kind: 'engine', text: text.slice(at, open) });
    const close = text.indexOf(RUN_CLOSE, open + 1);
    const end = close < 0 ? text.length : close;
    out.push({ kind: 'document', text: text.slice(open + 1, end) });
    at = close < 0 ? text.length : close + 1;
  }
  return out;
}

export function joinSegments(segments: readonly AnswerSegment[]): string {
  return segments.map((s) => (s.kind === 'document' ? `${RUN_OPEN}${s.text}${RUN_CLOSE}` : s.text)).join('');
}

/** A document segment's text as a reader sees it: no joiners, no bidi controls. */
export function documentValue(segmentText: string): string {
  return stripBidiControls(segmentText.replace(/\[\u2060/g, '['));
}

/**
 * An answer's text with its runs unwrapped: what it says, for a reader that does not render it
 * (the clipboard, a model's view of the conversation). Engine text keeps its markers.
 */
export function plainAnswerText(text: string): string {
  return answerSegments(text)
    .map((s) => (s.kind === 'document' ? documentValue(s.text) : stripBidiControls(s.text)))
    .join('');
}
