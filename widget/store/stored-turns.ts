/**
 * A conversation's turns as they are stored: each answer cut down to what the conversation keeps
 * (StoredAnswer: what the customer saw and what later turns read). The evaluation payload — up to
 * 30 ranked passages and the evidence features — is what made a stored conversation heavy, and
 * nothing reads it back. Records stored before the cut, which still carry it, read back through
 * the same function: they open and render as before, and a follow-up reads from them exactly what
 * it reads from a turn answered now.
 */
import type { ChatTurn, StoredAnswer } from '../answer/types.ts';

/**
 * The fields kept, one entry per field of StoredAnswer: a field added to the type and not here, or
 * here and not in the type, fails to compile.
 */
const KEPT: { readonly [K in keyof StoredAnswer]-?: true } = {
  text: true,
  citations: true,
  mode: true,
  confidence: true,
  refused: true,
  refusal: true,
  domain: true,
  lang: true,
  searchedQuery: true,
  reader: true,
};
const KEPT_FIELDS = Object.keys(KEPT) as (keyof StoredAnswer)[];

/** The answer with only the fields a conversation keeps (an absent optional field stays absent). */
export function storedAnswer(answer: StoredAnswer): StoredAnswer {
  const kept: Partial<Record<keyof StoredAnswer, unknown>> = {};
  for (const field of KEPT_FIELDS) if (answer[field] !== undefined) kept[field] = answer[field];
  return kept as StoredAnswer;
}

/** The turns as stored: on save, and on load for records written before answers were cut down. */
export function storedTurns(turns: readonly ChatTurn[]): ChatTurn[] {
  return turns.map((turn) => (turn.answer ? { ...turn, answer: storedAnswer(turn.answer) } : turn));
}
