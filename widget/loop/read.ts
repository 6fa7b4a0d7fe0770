/**
 * The read step: after the extractive answer is composed (and shown), the reader model
 * (engines/reader.ts) reads short windows of the cited page(s) for the question, and:
 * - a span it finds, verbatim in the window it read, leads the answer ("30 יום [1]"), the quote
 *   beneath (generate + ground: a span not in its window is discarded);
 * - where every window it read says "not in this passage" (`allNoAnswer`) and the page allows it
 *   (reader-refuses, decided by the loop: machine.ts), the answer becomes a refusal (grade; off by default: see docs/how-it-answers.md for the
 *   held-out figures that decide it).
 *
 * A window is the cited quote with its neighbours on the page (the passage's section, in reading
 * order: ContextPassage.context), about WINDOW_WORDS words: the reader was trained on windows of
 * at most 120 Gemma tokens, ~43 Hebrew words (training/reader/README.md), and a fact one line away
 * from the quote is the loss this step exists for (issue 34).
 */
import type { Answer, AnswerReader } from '../answer/types.ts';
import { stripBidiControls } from '../core/bidi-controls.ts';
import { parseClauseLine } from '../core/chunk/clause.ts';
import { createError, isHarelError } from '../core/errors.ts';
import { DEFAULT_READER_CALLS, type PassageReader, type ReaderReply } from '../engines/reader.ts';
import type { ContextPassage } from '../search/search-service.ts';

/** Words in one window: the training windows' mean (43) with room for the budget's cut. */
export const WINDOW_WORDS = 44;

// Kept with the reader's interface, where the element's configuration reads it without importing the loop.
export { DEFAULT_READER_CALLS };

export interface ReadWindow {
  /** The citation whose page the window comes from. */
  n: number;
  text: string;
}

export interface ReadOptions {
  /** At most this many reader calls (windows). */
  maxCalls: number;
  signal?: AbortSignal;
}

export interface ReadOutcome {
  reader: AnswerReader;
  /** The answer's new text where a span leads it, else null. */
  text: string | null;
  /** Every window read said "not in this passage" (and at least one was read). */
  allNoAnswer: boolean;
}

/**
 * Gemma's control tokens written out as text. llama.cpp parses special tokens in the reader's
 * prompt (its turn markers are control tokens), so a document or a question holding
 * "<end_of_turn>" would end the reader's turn where the page says: such text is removed first.
 */
const CONTROL_TOKEN_TEXT = /<\/?(?:start_of_turn|end_of_turn|bos|eos|pad|unk|mask)>/gi;

/** Text compared as the reader's prompt saw it: NFC, no bidi controls, no control-token text, single spaces. */
export function normalizeForReader(text: string): string {
  return stripBidiControls(text.normalize('NFC')).replace(CONTROL_TOKEN_TEXT, ' ').replace(/\s+/g, ' ').trim();
}

/** Words of `text`, split on whitespace. */
function words(text: string): string[] {
  const normal = normalizeForReader(text);
  return normal ? normal.split(' ') : [];
}

/**
 * The window of `context` around `quote`: the quote's words and the words on both sides, WINDOW_WORDS
 * in all (a quote longer than that keeps its start). Where the quote is not found in the context
 * (a table row rewritten, a quote of joined sentences), the window is the quote's own start.
 */
export function windowAround(context: string, quote: string, size = WINDOW_WORDS): string {
  const all = words(context);
  const head = words(quote.split(' … ')[0] ?? quote);
  if (head.length === 0) return all.slice(0, size).join(' ');
  const at = indexOfRun(all, head.slice(0, Math.min(6, head.length)));
  if (at < 0) return head.slice(0, size).join(' ');
  const quoteEnd = Math.min(all.length, at + head.length);
  const spare = Math.max(0, size - (quoteEnd - at));
  let start = Math.max(0, at - Math.floor(spare / 2));
  const end = Math.min(all.length, Math.max(quoteEnd, start + size));
  start = Math.max(0, Math.min(start, end - size));
  return all.slice(start, Math.min(end, start + size)).join(' ');
}

/**
 * The windows to read, best first, at most `maxCalls`: each citation's quote in its page's
 * context, in citation order, then the first citation's context after its window, so a fact just
 * below the quote is reached.
 */
export function readerWindows(answer: Pick<Answer, 'citations'>, passages: readonly ContextPassage[], maxCalls: number): ReadWindow[] {
  const out: ReadWindow[] = [];
  const seen = new Set<string>();
  const push = (n: number, text: string) => {
    if (!text || seen.has(text) || out.length >= maxCalls) return;
    seen.add(text);
    out.push({ n, text });
  };
  for (const citation of answer.citations) {
    const passage = passages.find((p) => p.chunkId === citation.chunkId);
    push(citation.n, windowAround(passage?.context || passage?.text || citation.quote, citation.quote));
  }
  const first = answer.citations[0];
  const passage = first && passages.find((p) => p.chunkId === first.chunkId);
  if (first && passage) {
    const all = words(passage.context || passage.text);
    const firstWindow = out[0] ? words(out[0].text) : [];
    const at = indexOfRun(all, firstWindow);
    if (at >= 0 && at + firstWindow.length < all.length) push(first.n, all.slice(at + firstWindow.length, at + firstWindow.length + WINDOW_WORDS).join(' '));
  }
  return out;
}

function indexOfRun(all: readonly string[], run: readonly string[]): number {
  if (run.length === 0) return -1;
  for (let i = 0; i + run.length <= all.length; i++) if (run.every((w, j) => all[i + j] === w)) return i;
  return -1;
}

/**
 * A clause number alone ("3.1.2", "5.7", "(4.2)", ".8.5.3"): where a fact stands, not the fact.
 * Multi-level only, so a bare amount ("30") stays an answer; a bare decimal ("12.2") is taken for
 * a clause number too, a loss the data allows (2 of HeQ's 1,001 answers that fit; an amount in a
 * policy carries its unit).
 */
const CLAUSE_NUMBER = /^[.(]?\d{1,2}(?:\.\d{1,2}){1,4}[.)]?$/;

/**
 * The span as it stands in the window, or null where the reply is not verbatim in it (ground: a
 * reader that rewrites, or reads a number the page does not hold, is not quoted). A span must hold
 * a letter or a digit. A clause number is not an answer: alone it is discarded, and one leading
 * the span's words is dropped (clause.ts decides, so "2.5 מיליון" stays a quantity). Measured on
 * the demo's questions (docs/how-it-answers.md#the-reader): the reader copied the line's clause
 * number in 8 of its 29 spans there, as policies open their lines with one.
 */
export function verbatimSpan(reply: string, window: string): string | null {
  let span = normalizeForReader(reply).replace(/^["'״׳]+|["'״׳]+$/g, '');
  if (CLAUSE_NUMBER.test(span)) return null;
  const clause = parseClauseLine(span);
  if (clause?.mark.kind === 'number' && clause.rest) span = clause.rest;
  if (!/[\p{L}\p{N}]/u.test(span)) return null;
  return normalizeForReader(window).includes(span) ? span : null;
}

/** The answer's text with the span leading it, cited; unchanged where the text already starts with it. */
export function leadWithSpan(text: string, span: string, n: number): string {
  if (normalizeForReader(text).startsWith(span)) return text;
  return `${span} [${n}]\n\n${text}`;
}

/** What an answer says when the reader did not read it, and why. */
export function skippedReader(reason: string, model: string | null = null): AnswerReader {
  return { verdict: 'skipped', span: null, n: null, ms: 0, calls: 0, noAnswerProbability: null, model, reason };
}

/** Reads the windows one at a time and stops at the first verbatim span. */
export async function readAnswer(question: string, answer: Pick<Answer, 'citations' | 'text'>, passages: readonly ContextPassage[], reader: PassageReader, options: ReadOptions): Promise<ReadOutcome> {
  const started = performance.now();
  const windows = readerWindows(answer, passages, options.maxCalls);
  const skipped = (reason: string): ReadOutcome => ({
    reader: { ...skippedReader(reason, reader.modelId), ms: performance.now() - started },
    text: null,
    allNoAnswer: false,
  });
  if (windows.length === 0) return skipped('no cited passage to read');
  const replies: ReaderReply[] = [];
  for (const window of windows) {
    let reply: ReaderReply;
    try {
      reply = await reader.read({ question: normalizeForReader(question), passage: window.text, signal: options.signal });
    } catch (error) {
      if (options.signal?.aborted || isHarelError(error, 'ABORTED')) throw createError('ABORTED');
      return skipped(error instanceof Error ? error.message : String(error));
    }
    replies.push(reply);
    if (reply.noAnswer) continue;
    const span = verbatimSpan(reply.text, reply.passageRead || window.text);
    if (span === null) continue;
    return {
      reader: { verdict: 'span', span, n: window.n, ms: performance.now() - started, calls: replies.length, noAnswerProbability: reply.noAnswerProbability, model: reader.modelId, reason: null },
      text: leadWithSpan(answer.text, span, window.n),
      allNoAnswer: false,
    };
  }
  const allNoAnswer = replies.length > 0 && replies.every((r) => r.noAnswer);
  const probabilities = replies.map((r) => r.noAnswerProbability).filter((p): p is number => p !== null);
  return {
    reader: {
      verdict: allNoAnswer ? 'no-answer' : 'skipped',
      span: null,
      n: null,
      ms: performance.now() - started,
      calls: replies.length,
      // The least certain "not here": the answer is refused only as surely as its likeliest window.
      noAnswerProbability: probabilities.length ? Math.min(...probabilities) : null,
      model: reader.modelId,
      reason: allNoAnswer ? null : 'no reply was an answer verbatim in its passage (a clause number alone is none)',
    },
    text: null,
    allNoAnswer,
  };
}
