/**
 * The customer's rating of an answer: what a click on thumbs up / down or on a reason changes,
 * and what the `harel-chat:feedback` event tells the site. No DOM: the element applies the change
 * to the session (which saves it with the conversation) and dispatches the detail built here.
 *
 * The widget sends nothing anywhere itself; the event is for the site's own analytics.
 */
import { plainAnswerText } from '../answer/document-text.ts';
import type { ChatTurn, Citation, FeedbackRating, FeedbackReason, TurnFeedback } from '../answer/types.ts';

export type { FeedbackRating, FeedbackReason, TurnFeedback } from '../answer/types.ts';

/** The reasons offered after a rating down, in the order shown. */
export const FEEDBACK_REASONS: readonly FeedbackReason[] = ['wrong', 'not-relevant', 'missing', 'unclear'];

/** `harel-chat:feedback`'s detail: one rating (or a change of it) of one answer. */
export interface HarelChatFeedbackDetail {
  /** The customer's question the answer replied to. */
  question: string;
  /** The answer as a reader sees it (document runs unwrapped, no bidi controls). */
  answer: string;
  citations: Citation[];
  rating: FeedbackRating;
  reason: FeedbackReason | null;
  /** The index build that wrote the answer ('' when unknown). */
  buildId: string;
}

/** What the customer did: a thumb (pressing the pressed one withdraws the rating), or a reason. */
export type FeedbackChange = { rating: FeedbackRating } | { reason: FeedbackReason };

/**
 * A turn's rating, if it holds a valid one. A stored conversation can be old (no rating), or
 * edited in IndexedDB: anything but a known rating and reason reads as no rating.
 */
export function feedbackOf(turn: ChatTurn | undefined): TurnFeedback | null {
  const value: unknown = turn?.feedback;
  if (!value || typeof value !== 'object') return null;
  const { rating, reason, at } = value as Record<string, unknown>;
  if (rating !== 'up' && rating !== 'down') return null;
  const known = rating === 'down' && FEEDBACK_REASONS.includes(reason as FeedbackReason) ? (reason as FeedbackReason) : null;
  return { rating, reason: known, at: typeof at === 'number' ? at : 0 };
}

/**
 * The rating after a change, or null when it is withdrawn:
 * - a thumb that is not pressed sets that rating (a reason given before is dropped);
 * - the pressed thumb withdraws the rating;
 * - a reason (offered only after a rating down) sets it; the chosen reason again clears it.
 */
export function nextFeedback(current: TurnFeedback | null, change: FeedbackChange, at = Date.now()): TurnFeedback | null {
  if ('rating' in change) {
    if (current?.rating === change.rating) return null;
    return { rating: change.rating, reason: null, at };
  }
  if (current?.rating !== 'down') return current;
  return { rating: 'down', reason: current.reason === change.reason ? null : change.reason, at };
}

/** The question an answer at `turnIndex` replied to: the nearest customer turn before it. */
export function questionFor(turns: readonly ChatTurn[], turnIndex: number): string {
  for (let i = turnIndex - 1; i >= 0; i--) if (turns[i].role === 'user') return turns[i].text;
  return '';
}

/**
 * The event's detail for the rating the turn at `turnIndex` holds now; null when it holds none
 * (a withdrawn rating fires no event). `buildId` is the current build's, used for a turn stored
 * before turns recorded their own.
 */
export function feedbackDetail(turns: readonly ChatTurn[], turnIndex: number, buildId: string): HarelChatFeedbackDetail | null {
  const turn = turns[turnIndex];
  const feedback = feedbackOf(turn);
  if (!turn || !feedback) return null;
  return {
    question: questionFor(turns, turnIndex),
    answer: plainAnswerText(turn.text),
    citations: turn.answer?.citations ?? [],
    rating: feedback.rating,
    reason: feedback.reason,
    buildId: turn.buildId ?? buildId,
  };
}
