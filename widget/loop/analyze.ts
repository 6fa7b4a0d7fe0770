/**
 * Step 1: what language the question is in, and what to search for. A follow-up ("ומה לגבי רכב?",
 * "and for abroad?", "כמה זה עולה?") leans on the previous question; it is searched with that
 * question's content words prepended, while the question shown stays as typed.
 *
 * The follow-up heuristic (no model): a question is a follow-up when there is a previous question
 * and the new one has at most FOLLOW_UP_MAX_WORDS content words and either
 * - opens like a continuation (ו/and-prefixed "what about", "מה לגבי", "ומה", "also", "and"…), or
 * - refers back with a pronoun or demonstrative (זה, זו, הוא, היא, אותו, it, this, that, they…), or
 * - has at most FOLLOW_UP_BARE_WORDS content words (an ellipsis: "ולחו"ל?", "and abroad?").
 * A longer question stands on its own even with "it" in it: it carries its own context.
 */
import type { ChatTurn } from '../answer/types.ts';
import type { Lang } from '../core/schema.ts';
import { detectLang, normalizeText, tokenize } from '../core/tokenizer/index.ts';
import { contentWords } from './terms.ts';

export interface AnalyzedQuestion {
  /** The question as typed. */
  question: string;
  lang: Lang;
  /** What to search: the question, or a follow-up with the previous question's content words before it. */
  searchQuery: string;
  followUp: boolean;
}

export const FOLLOW_UP_MAX_WORDS = 4;
export const FOLLOW_UP_BARE_WORDS = 2;

const CONTINUATION =
  /^(?:ו?מה\s+(?:לגבי|עם|בנוגע|בקשר|אם)|ו?לגבי|ו?בנוגע|ו?אם|ו?גם|ו?מה|ו?כמה|ו?האם|ו?איך|and|also|what\s+about|how\s+about|what\s+if|and\s+if|same\s+for|what\s+of)(?=[\s?,.!]|$)/iu;
// Hebrew needs a whole-word test of its own: \b knows nothing of Hebrew letters.
const HEBREW_REFERENCE = new Set(
  normalizeText('זה זו זאת הוא היא הם הן אותו אותה אותם זהו זוהי שלו שלה שלהם בזה לזה עליו עליה עליהם הזה הזאת הזו כזה כזאת').split(' '),
);
const ENGLISH_REFERENCE = /\b(?:it|its|this|that|these|those|they|them|their|one|there)\b/i;

function hebrewWords(text: string): string[] {
  return normalizeText(text).match(/[\u05D0-\u05EA"']+/g) ?? [];
}

function refersBack(question: string): boolean {
  if (ENGLISH_REFERENCE.test(question)) return true;
  // "ומה זה", "כמה זה עולה": the pronoun may carry a conjunction or preposition prefix.
  return hebrewWords(question).some((w) => HEBREW_REFERENCE.has(w) || (/^[ובלשכמ]/.test(w) && HEBREW_REFERENCE.has(w.slice(1))));
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

export function isFollowUp(question: string, previous: string | null): boolean {
  if (!previous) return false;
  const words = contentWords(question).length;
  if (words > FOLLOW_UP_MAX_WORDS) return false;
  const trimmed = normalizeText(question.trim());
  return words <= FOLLOW_UP_BARE_WORDS || CONTINUATION.test(trimmed) || refersBack(trimmed);
}

/** Words of `text` (as written) that carry search terms and are not already among `exclude`'s terms. */
function contentSurfaceWords(text: string, exclude: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const word of text.split(/[\s,.;:!?()[\]{}“”„«»]+/u)) {
    const terms = tokenize(word);
    if (terms.length === 0 || terms.some((t) => exclude.has(t))) continue;
    out.push(word);
    for (const t of terms) (exclude as Set<string>).add(t);
  }
  return out;
}

export function analyzeQuestion(question: string, history: readonly ChatTurn[], lang: Lang | 'auto' = 'auto'): AnalyzedQuestion {
  const text = question.trim();
  const detected = lang === 'auto' ? detectLang(text) : lang;
  const previous = previousQuery(history);
  if (!isFollowUp(text, previous)) return { question, lang: detected, searchQuery: text, followUp: false };
  const own = new Set(tokenize(text));
  const carried = contentSurfaceWords(previous!, own);
  if (carried.length === 0) return { question, lang: detected, searchQuery: text, followUp: false };
  return { question, lang: detected, searchQuery: `${carried.join(' ')} ${text}`, followUp: true };
}
