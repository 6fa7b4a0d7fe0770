/**
 * The one reading of a question, made once (the loop's analyze step) and read by every later step,
 * the engines and the view: nothing downstream detects a question's kind, small talk or asked
 * terms again. Two texts are read and kept apart, since each reader was fitted or written on one:
 * - `typed`, the question as the customer typed it: the engines' kind of answer (the GGUF gate,
 *   the web-llm prompt's hint), small talk's reply;
 * - `searched`, what the loop searched (a follow-up rewritten with the previous question's words):
 *   the fitted evidence features and grading read it.
 * `asking` is the one of the two that says what is asked: the typed question, unless it says
 * nothing ('other') and the search added words ("ומה לגבי רכב?" is read with the question it
 * continues).
 */
import type { Lang } from '../core/schema.ts';
import { detectLang } from '../core/tokenizer/index.ts';
import { askedChannels, type ContactChannel } from './contacts.ts';
import { factLabels, isFactKind, type FactKind } from './facts.ts';
import { namedInsurance } from './follow-up-subject.ts';
import { mentionsInsurance } from './insurance-words.ts';
import { askingText, detectQuestionType, type QuestionType } from './question-type.ts';
import { smallTalkKind, type SmallTalkKind } from './small-talk.ts';
import { contentWords, type Word } from './terms.ts';

/** What one text of the question says, read once. */
export interface TextReading {
  readonly text: string;
  /** The kind of answer it asks for (question-type.ts). */
  readonly type: QuestionType;
  /** A greeting, thanks, a question about the assistant or arithmetic; null for a question for information. */
  readonly smallTalk: SmallTalkKind | null;
  /** Its content words (terms.ts). */
  readonly words: readonly Word[];
  /**
   * The content words of its sentences that ask (question-type.ts `askingText`); `words` when no
   * sentence holds a question mark or one sentence is the whole text. A customer's story before
   * the question says who asks, not what.
   */
  readonly askingWords: readonly Word[];
  /** It names insurance ("ביטוח", "policy", …): never off-topic. */
  readonly insuranceWords: boolean;
  /** The one insurance it names ("רכב" → car), or null (none, or several). */
  readonly insurance: string | null;
  /** The language its letters are in. */
  readonly lang: Lang;
}

export interface QuestionReading {
  readonly typed: TextReading;
  /** The same object as `typed` when the question was searched as typed. */
  readonly searched: TextReading;
  /** What says what is asked: `typed`, or `searched` for a typed question that says nothing. */
  readonly asking: TextReading;
  /** The kind of fact asked for (an amount, a period, …), null for a question of another kind. */
  readonly factKind: FactKind | null;
  /** The terms `asking` names its fact by ("מה ההשתתפות העצמית" → השתתפות עצמית); empty when none. */
  readonly askedTerms: readonly string[];
  /** The same, as the searched words name it (sentence scoring reads the searched words). */
  readonly searchedAskedTerms: readonly string[];
  /** The ways of reaching the insurer `asking` asks for ("לאן שולחים את הטפסים?": all of them; contacts.ts), null when none. */
  readonly contactChannels: readonly ContactChannel[] | null;
  /** The answer's language (the question's own; the interface's for a question without letters). */
  readonly lang: Lang;
}

export function readText(text: string): TextReading {
  const words = contentWords(text);
  const asking = askingText(text);
  return {
    text,
    type: detectQuestionType(text),
    smallTalk: smallTalkKind(text),
    words,
    askingWords: asking === text ? words : contentWords(asking),
    insuranceWords: mentionsInsurance(text),
    insurance: namedInsurance(text),
    lang: detectLang(text),
  };
}

/**
 * The question's reading from its typed text's (`typed`, read once by analyze before the search
 * query is known) and the searched text. `lang` is the answer's language (analyze.ts answerLang).
 */
export function readQuestion(typed: TextReading, searchedText: string, lang: Lang): QuestionReading {
  const searched = searchedText === typed.text ? typed : readText(searchedText);
  const asking = typed.type === 'other' && searched !== typed ? searched : typed;
  const factKind = isFactKind(asking.type) ? asking.type : null;
  const askedTerms = factKind ? factLabels(asking.text, factKind) : [];
  const searchedAskedTerms = !factKind ? [] : searched === asking ? askedTerms : factLabels(searched.text, factKind);
  return { typed, searched, asking, factKind, askedTerms, searchedAskedTerms, contactChannels: askedChannels(asking.text), lang };
}

/** A reading of a question asked alone and searched as typed (tests, evals, a caller without the loop). */
export function readStandalone(question: string, searchedText = question, lang: Lang = detectLang(question)): QuestionReading {
  return readQuestion(readText(question), searchedText, lang);
}
