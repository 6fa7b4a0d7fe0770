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
import { detectLang, tokenize } from '../core/tokenizer/index.ts';
import { isBareQuestionWord, readsAsContinuation, refersBack, withoutContinuation } from './follow-up-cues.ts';
import { namedInsurance, reaskAbout } from './follow-up-subject.ts';
import { mentionsInsurance } from './route.ts';
import { contentWords } from './terms.ts';

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

/** The question's own language; the interface language only when it has no Hebrew or Latin letters to tell by. */
export function answerLang(question: string, interfaceLang: Lang | 'auto' = 'auto'): Lang {
  if (interfaceLang !== 'auto' && !/[\u05D0-\u05EAA-Za-z\u00C0-\u024F]/.test(question)) return interfaceLang;
  return detectLang(question);
}

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
export async function followUpSignal(question: string, previous: string | null, fitsPreviousTopic?: TopicFit): Promise<FollowUpSignal> {
  if (!previous) return null;
  const words = contentWords(question).length;
  if (words > FOLLOW_UP_MAX_WORDS) return null;
  if (readsAsContinuation(question)) return 'continuation';
  if (refersBack(question)) return 'reference';
  if (words === 0) return isBareQuestionWord(question) ? 'ellipsis' : null;
  if (words > FOLLOW_UP_BARE_WORDS) return null;
  if (mentionsInsurance(question)) return 'ellipsis';
  return (await fitsPreviousTopic?.(question, previous)) ? 'ellipsis' : null;
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
  const alone: AnalyzedQuestion = { question, lang, searchQuery: text, followUp: false, followUpSignal: null };
  const previous = previousQuery(history);
  const signal = await followUpSignal(text, previous, options.fitsPreviousTopic);
  if (!signal) return alone;
  const own = withoutContinuation(text) || text;
  const followUp = { ...alone, followUp: true, followUpSignal: signal };
  const reasked = reaskAbout(previous!, own);
  // The customer named the insurance: search it, whatever the router makes of the previous question's words.
  if (reasked) return { ...followUp, searchQuery: reasked, domain: namedInsurance(own) };
  const carried = contentSurfaceWords(previous!, new Set(tokenize(own)));
  if (carried.length === 0) return alone;
  return { ...followUp, searchQuery: `${carried.join(' ')} ${own}` };
}
