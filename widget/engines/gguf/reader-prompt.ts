/**
 * The reader's prompt, exactly as the model was trained on it (training/reader/prompt_format.py
 * and hebrew_text.normalize_space; checked against prompts the Python code wrote, in
 * tests/fixtures/reader/prompt-cases.json):
 *
 *     <bos><start_of_turn>user
 *     שאלה: {question}
 *     קטע: {passage}<end_of_turn>
 *     <start_of_turn>model
 *
 * and the model replies with a verbatim span of the passage, or NO_ANSWER, then <end_of_turn>.
 * The turn markers are control tokens: the engine sends this text with special tokens parsed.
 * Pure: counting tokens is the caller's (the GGUF's own tokenizer in the engine, spm-tokenizer.ts).
 */
import { decodeHTML } from 'entities';
import { createError } from '../../core/errors.ts';

/** The reply that says "the passage does not answer it". */
export const NO_ANSWER = 'אין בקטע';
/** The whole prompt, BOS and turn markers included. */
export const PROMPT_TOKENS = 160;
export const PASSAGE_TOKENS = 120;
export const QUESTION_TOKENS = 36;
/** The reply's cap, its <end_of_turn> included (training cut spans at this). */
export const ANSWER_TOKENS = 24;

const BOS = '<bos>';
const QUESTION_LABEL = 'שאלה: ';
const PASSAGE_LABEL = '\nקטע: ';
/** The user turn's opening and the model turn that follows it. */
const USER_TURN = '<start_of_turn>user\n';
const MODEL_TURN = '<end_of_turn>\n<start_of_turn>model\n';

/**
 * Counts the tokens llama.cpp gives a text, control tokens such as <start_of_turn> parsed as
 * one token each, with no BOS added.
 */
export type CountTokens = (text: string) => number | Promise<number>;

export interface ReaderPrompt {
  /** The question as the prompt holds it: normalized, its last words within QUESTION_TOKENS. */
  question: string;
  /** The passage as the prompt holds it: normalized, whole words from its start within the budget. */
  passage: string;
  /** The prompt text, starting with <bos>: a llama.cpp that adds BOS itself gets it without. */
  text: string;
  /** Its tokens, BOS included. */
  tokens: number;
}

// Python's `\s` (str patterns) is JavaScript's `\s` plus the separators U+001C-U+001F and U+0085;
// JavaScript's also holds U+FEFF, which is dropped with the bidi controls before.
const SPACE_RUN = /[\s\x1c-\x1f\x85]+/g;
const BIDI_CONTROLS = /[\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/**
 * hebrew_text.normalize_space: HTML entities decoded (HTML5's rules, as Python's html.unescape),
 * NFC, bidi controls dropped, every whitespace run (newlines too) one space, trimmed.
 */
export function normalizeReaderText(text: string): string {
  return decodeHTML(text).normalize('NFC').replace(BIDI_CONTROLS, '').replace(SPACE_RUN, ' ').trim();
}

/** Whether a reply says no-answer: normalized, it starts with NO_ANSWER (evaluate.py is_no_answer). */
export function isNoAnswer(reply: string): boolean {
  return normalizeReaderText(reply).startsWith(NO_ANSWER);
}

/** The prompt text for a question and passage already cut to the budget. */
export function readerPromptText(question: string, passage: string): string {
  return `${BOS}${USER_TURN}${QUESTION_LABEL}${question}${PASSAGE_LABEL}${passage}${MODEL_TURN}`;
}

/**
 * The prompt for one question and one passage window, within PROMPT_TOKENS: the question keeps
 * its last words within QUESTION_TOKENS (Hebrew questions end with what they ask); the passage
 * keeps its first words within min(PASSAGE_TOKENS, what is left), as prompt_format.passage_budget
 * reckons it. Throws READER_PROMPT_TOO_LONG where even an empty passage leaves no room.
 */
export async function buildReaderPrompt(rawQuestion: string, rawPassage: string, countTokens: CountTokens): Promise<ReaderPrompt> {
  const count = async (text: string) => countTokens(text);
  const questionWords = normalizeReaderText(rawQuestion).split(' ');
  const q = await lastWordsWithin(questionWords, QUESTION_TOKENS, count);
  // The prompt's own tokens with an empty question and passage (prompt_format.PromptFormat.fixed).
  const fixed = await promptTokens('', '', count);
  const budget = Math.min(PASSAGE_TOKENS, PROMPT_TOKENS - fixed - (await count(q)) - 2);
  if (budget < 0) throw createError('READER_PROMPT_TOO_LONG', PROMPT_TOKENS, `the question alone takes ${await promptTokens(q, '', count)} tokens`);
  const passageWords = normalizeReaderText(rawPassage).split(' ');
  let passage = await firstWordsWithin(passageWords, budget, count);
  // The budget reckons the pieces apart; joined they may tokenize a little differently: drop
  // words from the passage's end until the whole prompt fits.
  let tokens = await promptTokens(q, passage, count);
  while (tokens > PROMPT_TOKENS && passage) {
    passage = passage.split(' ').slice(0, -1).join(' ');
    tokens = await promptTokens(q, passage, count);
  }
  if (tokens > PROMPT_TOKENS) throw createError('READER_PROMPT_TOO_LONG', PROMPT_TOKENS, `the question alone takes ${tokens} tokens`);
  return { question: q, passage, text: readerPromptText(q, passage), tokens };
}

async function promptTokens(question: string, passage: string, count: (text: string) => Promise<number>): Promise<number> {
  // BOS, then the rest as llama.cpp tokenizes it with special tokens parsed.
  return 1 + (await count(readerPromptText(question, passage).slice(BOS.length)));
}

/** prompt_format.trim_question: drop first words while more than one is left and they do not fit. */
async function lastWordsWithin(words: string[], limit: number, count: (text: string) => Promise<number>): Promise<string> {
  let from = 0;
  while (words.length - from > 1 && (await count(words.slice(from).join(' '))) > limit) from++;
  return words.slice(from).join(' ');
}

/**
 * The longest run of whole words from the start whose tokens fit `limit` (an empty string when
 * not even the first word does: training's windows kept one word there, and such a prompt was
 * over budget). Found by bisection, as a word more never takes tokens away in practice; the
 * whole prompt is counted again after.
 */
async function firstWordsWithin(words: string[], limit: number, count: (text: string) => Promise<number>): Promise<string> {
  const fits = async (n: number) => n === 0 || (await count(words.slice(0, n).join(' '))) <= limit;
  if (await fits(words.length)) return words.join(' ');
  let lo = 0;
  let hi = words.length;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (await fits(mid)) lo = mid;
    else hi = mid;
  }
  return words.slice(0, lo).join(' ');
}
