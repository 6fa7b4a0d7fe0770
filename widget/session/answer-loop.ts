/**
 * What answering needs: the loop, the text layer it reads questions with and the extractive
 * engine. chat-session.ts imports this module with the first question, so a visit that asks
 * nothing never downloads it, and what the page fetches before its first question stays small
 * (builder/bench/js-weight.ts).
 */
export { ExtractiveEngine } from '../engines/extractive.ts';
export { runAnswerLoop } from '../loop/machine.ts';
export { skippedReader } from '../loop/read.ts';
