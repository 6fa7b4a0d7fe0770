/**
 * Step 1: what language the question is in, and what to search for. A follow-up ("ומה לגבי רכב?",
 * "and for abroad?", "כמה זה עולה?") leans on the previous question, while the question shown
 * stays as typed. It is searched as one of two things (its continuation opener, "ומה לגבי",
 * "and", dropped either way: follow-up-cues.ts):
 * - the previous question about a new subject, when it names another insurance than the previous
 *   question did ("ומה לגבי רכב?" after "מה ההשתתפות העצמית בביטוח דירה?" → "מה ההשתתפות העצמית
 *   בביטוח רכב?"; follow-up-subject.ts);
 * - else the previous question narrowed: its content words, then the follow-up's ("ולחו"ל?" after a
 *   surgery question, "כמה זה עולה?").
 *
 * A short question (at most FOLLOW_UP_MAX_WORDS content words) after another is a follow-up only
 * with a signal that it continues the conversation (follow-up-cues.ts has the word lists):
 * - continuation: it opens like one ("ומה לגבי…", "ולחו"ל?", "and…", "what about…", "also…");
 * - reference: a pronoun or demonstrative points back ("כמה זה עולה?", "is it covered?");
 * - ellipsis: a bare phrase (at most FOLLOW_UP_BARE_WORDS content words, or a lone "למה?") whose
 *   words fit the previous topic: insurance words ("השתתפות עצמית?"), or what `fitsPreviousTopic`
 *   (the router, in the loop) says.
 * Shortness alone is no signal: "מה מזג האוויר מחר?" after a health question is a new topic. A
 * longer question stands on its own even with "it" in it: it carries its own context.
 *
 * The answer is in the question's language; the interface language decides only for a question
 * with no Hebrew or Latin letters ("?", "5000").
 */
import type { ChatTurn } from '../answer/types.ts';
import type { Lang } from '../core/schema.ts';
import { tokenize } from '../core/tokenizer/index.ts';
import { answerLang } from '../text/answer-lang.ts';
import { isBareQuestionWord, readsAsContinuation, refersBack, withoutContinuation } from '../text/follow-up-cues.ts';
import { namedInsurance, reaskAbout } from '../text/follow-up-subject.ts';
import { readQuestion, readText, type QuestionReading, type TextReading } from '../text/question-reading.ts';

export type FollowUpSignal = 'continuation' | 'reference' | 'ellipsis' | null;

export interface AnalyzedQuestion {
  /** The question as typed. */
  question: string;
  lang: Lang;
  /** What to search: the question; for a follow-up, the previous question about its new subject, or narrowed by its words. */
  searchQuery: string;
  followUp: boolean;
  /** What made it a follow-up; null when it is not one. */
  followUpSignal: FollowUpSignal;
  /**
   * The domain to search when the question names it outright: a follow-up that re-asks the previous
   * question about another insurance ("ומה לגבי נסיעות?"). Absent otherwise (the router decides).
   */
  domain?: string | null;
  /** The question read once, as typed and as searched: what every later step reads it by. */
  reading: QuestionReading;
}

/** Whether a bare ellipsis's words continue the previous question's topic (`previous` as it was searched). */
export type TopicFit = (question: string, previous: string) => Promise<boolean>;

export interface AnalyzeOptions {
  /** The interface language: the answer's language when the question has no letters. */
  interfaceLang?: Lang | 'auto';
  /** Without it, only insurance words make a bare ellipsis fit. */
  fitsPreviousTopic?: TopicFit;
}

export const FOLLOW_UP_MAX_WORDS = 4;
export const FOLLOW_UP_BARE_WORDS = 2;

// In the text layer, so that the view reads it without importing the loop (answer-loop.ts is lazy).
export { answerLang };

/** The previous question's searched text: its rewritten form when it was a follow-up itself. */
export function previousQuery(history: readonly ChatTurn[]): string | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const turn = history[i];
    if (turn.role === 'assistant' && turn.answer?.searchedQuery) return turn.answer.searchedQuery;
    if (turn.role === 'user' && turn.text.trim()) return turn.text;
  }
  return null;
}

/** Why `question` continues `previous`, or null when it stands on its own. */
export async function followUpSignal(question: TextReading, previous: string | null, fitsPreviousTopic?: TopicFit): Promise<FollowUpSignal> {
  if (!previous) return null;
  const { text } = question;
  const words = question.words.length;
  if (words > FOLLOW_UP_MAX_WORDS) return null;
  if (readsAsContinuation(text)) return 'continuation';
  if (refersBack(text)) return 'reference';
  if (words === 0) return isBareQuestionWord(text) ? 'ellipsis' : null;
  if (words > FOLLOW_UP_BARE_WORDS) return null;
  if (question.insuranceWords) return 'ellipsis';
  return (await fitsPreviousTopic?.(text, previous)) ? 'ellipsis' : null;
}

/** Words of `text` (as written) that carry search terms and are not already among `exclude`'s terms. */
function contentSurfaceWords(text: string, exclude: Set<string>): string[] {
  const out: string[] = [];
  for (const word of text.split(/[\s,.;:!?()[\]{}“”„«»]+/u)) {
    const terms = tokenize(word);
    if (terms.length === 0 || terms.some((t) => exclude.has(t))) continue;
    out.push(word);
    for (const t of terms) exclude.add(t);
  }
  return out;
}

export async function analyzeQuestion(question: string, history: readonly ChatTurn[], options: AnalyzeOptions = {}): Promise<AnalyzedQuestion> {
  const text = question.trim();
  const lang = answerLang(text, options.interfaceLang);
  // Read as typed, once: the words and cues it is read by do not depend on white space around it.
  const typed = readText(question);
  const analyzed = (searchQuery: string, rest: Partial<AnalyzedQuestion> = {}): AnalyzedQuestion => ({
    question,
    lang,
    searchQuery,
    followUp: false,
    followUpSignal: null,
    ...rest,
    reading: readQuestion(typed, searchQuery, lang),
  });
  const previous = previousQuery(history);
  const signal = await followUpSignal(typed, previous, options.fitsPreviousTopic);
  if (!signal) return analyzed(text);
  const own = withoutContinuation(text) || text;
  const followUp = { followUp: true, followUpSignal: signal };
  const reasked = reaskAbout(previous!, own);
  // The customer named the insurance: search it, whatever the router makes of the previous question's words.
  if (reasked) return analyzed(reasked, { ...followUp, domain: namedInsurance(own) });
  const carried = contentSurfaceWords(previous!, new Set(tokenize(own)));
  if (carried.length === 0) return analyzed(text);
  return analyzed(`${carried.join(' ')} ${own}`, followUp);
}
