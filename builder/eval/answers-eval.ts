/**
 * Whether an answer states the fact, not only whether it cites the page: every answerable
 * question runs through the real loop (as the widget answers it, in Node), and its answer is read
 * against the ground truth's numbers (answer-numbers.ts).
 *
 * Per question: the numbers the ground truth states that the question does not hold ("expected"),
 * whether the lead (the lines before the quotes) and the whole answer show all of them and at
 * least half of them, how many distinct numbers the answer shows, whether the lead states a fact
 * of the asked kind (facts.ts `askedFacts`, for a question asking for a quantity), whether the
 * lead's citations are pages that answer (its scope: the fact is read where the question's fact
 * is), and whether the answer cites such a page at all.
 *
 * The development set is split once by a seeded half (`splitHalves`): rules are tuned on one half
 * and the other half is reported beside it, frozen.
 */
import type { Answer } from '../../widget/answer/types.ts';
import type { AnswerEngine } from '../../widget/engines/engine.ts';
import { runAnswerLoop } from '../../widget/loop/machine.ts';
import type { SearchService } from '../../widget/search/search-service.ts';
import { askedFacts, isFactKind } from '../../widget/text/facts.ts';
import { ANSWER_LEADS, STRINGS } from '../../widget/text/strings.ts';
import type { ProgressCallback } from '../../widget/core/schema.ts';
import { expectedNumbers, statedNumbers } from './answer-numbers.ts';
import { citesGoldLenient } from './browser/answer-metrics.ts';
import { answerBody } from './browser/answer-overlap.ts';
import type { TwinLookup } from './metrics.ts';
import type { EvalQuestion } from './questions.ts';

/** The seed of the development split: fixed before any rule was tuned on it (issue 55). */
export const SPLIT_SEED = 55;

export type Half = 'tune' | 'frozen';

/**
 * Plain FNV-1a, 32 bits: a stable order of question ids that does not depend on the file's order.
 * Not `fnv1a` of core/chunk/hash.ts, which mixes its result (fmix32): the halves were fixed with
 * this order before any rule was tuned on one of them, and another hash would move tuned questions
 * into the frozen half.
 */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** Each question's half: ids ordered by their seeded hash, the first half (rounded up) tunes. */
export function splitHalves(ids: readonly string[], seed = SPLIT_SEED): Map<string, Half> {
  const ordered = [...ids].sort((a, b) => hash(`${seed}:${a}`) - hash(`${seed}:${b}`) || (a < b ? -1 : 1));
  const tune = Math.ceil(ordered.length / 2);
  return new Map(ordered.map((id, i) => [id, i < tune ? 'tune' : 'frozen']));
}

const QUOTE_FRAMES = [
  ...Object.values(STRINGS).flatMap((s) => [s.quoteIntro, s.quoteIntroOwn, s.quoteIntroMixed, s.closestClauses]),
  ...Object.values(ANSWER_LEADS).flatMap((l) => [l.afterVerdict, l.afterVerdictOwn, l.afterVerdictMixed, l.otherLanguage, l.afterVerdictOtherLanguage]),
].sort((a, b) => b.length - a.length);
/** A quote line: the answer's (“…” [n]) or the closest clauses' of a refusal (• “…” [n]). */
const QUOTE_LINE = /^\s*(?:[•\-*]\s*)?“/u;

/**
 * The answer's lead: what it says before its quotes (the fact line or list, a verdict, an LLM's
 * first lines), the quotes' frame left out; empty when it opens with the quotes.
 */
export function answerLead(text: string): string {
  const lines = text.split('\n');
  const quoteAt = lines.findIndex((l) => QUOTE_LINE.test(l));
  let lead = (quoteAt < 0 ? lines : lines.slice(0, quoteAt)).join('\n');
  for (const frame of QUOTE_FRAMES) lead = lead.split(frame).join('');
  return lead.replace(/[,:\s]+$/u, '').trim();
}

export interface AnswerRecord {
  id: string;
  half: Half | null;
  /** The kind of fact the question asks for (null: not a quantity). */
  factKind: string | null;
  expected: string[];
  /** Of the expected numbers, those the lead shows, and those the whole answer shows. */
  inLead: string[];
  inAnswer: string[];
  /** Distinct numbers the whole answer shows (citation markers and clause references left out). */
  shown: number;
  /** The lead states a fact of the asked kind about the asked term; null for a question not asking a quantity. */
  leadAskedKind: boolean | null;
  /** Every citation the lead carries is a page that answers; null when the lead cites nothing. */
  leadCitesGold: boolean | null;
  citesGold: boolean;
  confidence: Answer['confidence'];
  refused: boolean;
  lead: string;
  /** The answer as shown. */
  text: string;
}

export interface AnswersOptions {
  search: SearchService;
  engine: AnswerEngine;
  aliases: ReadonlyMap<string, string>;
  twins: TwinLookup;
  halves?: ReadonlyMap<string, Half>;
  onProgress?: ProgressCallback;
}

/** Reads one answer against its question's ground truth. */
export function readAnswer(q: EvalQuestion, answer: Answer, options: Pick<AnswersOptions, 'aliases' | 'twins' | 'halves'>): AnswerRecord {
  const expected = [...expectedNumbers(q.answers.join('\n'), q.question)];
  const lead = answerLead(answer.text);
  const leadNumbers = statedNumbers(lead);
  const answerNumbers = statedNumbers(answerBody(answer.text));
  const factKind = answer.reading?.factKind ?? null;
  const leadMarkers = new Set([...lead.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])));
  const leadCitations = answer.citations.filter((c) => leadMarkers.has(c.n));
  return {
    id: q.id,
    half: options.halves?.get(q.id) ?? null,
    factKind,
    expected,
    inLead: expected.filter((n) => leadNumbers.has(n)),
    inAnswer: expected.filter((n) => answerNumbers.has(n)),
    shown: answerNumbers.size,
    leadAskedKind: factKind && isFactKind(factKind) ? lead !== '' && askedFacts(lead, q.question, factKind).length > 0 : null,
    leadCitesGold: leadCitations.length === 0 ? null : leadCitations.every((c) => citesGoldLenient({ citations: [c] }, q.facts, options.aliases, options.twins)),
    citesGold: citesGoldLenient(answer, q.facts, options.aliases, options.twins),
    confidence: answer.confidence,
    refused: answer.refused,
    lead,
    text: answer.text,
  };
}

/** Every answerable question with a ground-truth answer, through the loop, read. */
export async function runAnswersEval(questions: readonly EvalQuestion[], options: AnswersOptions): Promise<AnswerRecord[]> {
  const asked = questions.filter((q) => q.answerable && q.answers.length > 0);
  const records: AnswerRecord[] = [];
  for (const [i, q] of asked.entries()) {
    const answer = await runAnswerLoop({ question: q.question, history: [] }, { search: options.search, engine: options.engine });
    records.push(readAnswer(q, answer, options));
    options.onProgress?.({ step: 'answers', done: i + 1, total: asked.length, detail: q.id });
  }
  return records;
}

export interface AnswersSummary {
  questions: number;
  /** Questions whose ground truth states a number the question does not hold. */
  numeric: number;
  leadAll: number;
  leadHalf: number;
  answerAll: number;
  answerHalf: number;
  /** Mean distinct numbers an answer to a numeric question shows. */
  meanShown: number;
  /** Questions asking for a quantity, and of them those whose lead states one of the asked kind. */
  askingQuantity: number;
  leadAskedKind: number;
  /** Leads that cite, and of them those citing pages that answer. */
  leadsCiting: number;
  leadCitesGold: number;
  citesGold: number;
  high: number;
  /** "high" answers to numeric questions, and those of them whose answer shows every expected number. */
  highNumeric: number;
  highNumericAll: number;
  refused: number;
}

export function summarizeAnswers(records: readonly AnswerRecord[]): AnswersSummary {
  const numeric = records.filter((r) => r.expected.length > 0);
  const count = (list: readonly AnswerRecord[], test: (r: AnswerRecord) => boolean) => list.filter(test).length;
  const all = (found: string[], r: AnswerRecord) => found.length === r.expected.length;
  const half = (found: string[], r: AnswerRecord) => found.length * 2 >= r.expected.length;
  const highNumeric = numeric.filter((r) => r.confidence === 'high' && !r.refused);
  return {
    questions: records.length,
    numeric: numeric.length,
    leadAll: count(numeric, (r) => all(r.inLead, r)),
    leadHalf: count(numeric, (r) => half(r.inLead, r)),
    answerAll: count(numeric, (r) => all(r.inAnswer, r)),
    answerHalf: count(numeric, (r) => half(r.inAnswer, r)),
    meanShown: numeric.length === 0 ? 0 : numeric.reduce((s, r) => s + r.shown, 0) / numeric.length,
    askingQuantity: count(records, (r) => r.leadAskedKind !== null),
    leadAskedKind: count(records, (r) => r.leadAskedKind === true),
    leadsCiting: count(records, (r) => r.leadCitesGold !== null),
    leadCitesGold: count(records, (r) => r.leadCitesGold === true),
    citesGold: count(records, (r) => r.citesGold),
    high: count(records, (r) => r.confidence === 'high' && !r.refused),
    highNumeric: highNumeric.length,
    highNumericAll: count(highNumeric, (r) => all(r.inAnswer, r)),
    refused: count(records, (r) => r.refused),
  };
}

const share = (n: number, d: number) => `${n}/${d}${d ? ` (${Math.round((100 * n) / d)} %)` : ''}`;

/** One paragraph per group of questions: the figures of `summarizeAnswers`. */
export function formatAnswersSummary(label: string, s: AnswersSummary): string {
  return [
    `${label}: ${s.questions} answerable questions, ${s.numeric} whose ground truth states a number the question does not hold`,
    `  lead shows every number ${share(s.leadAll, s.numeric)}, at least half ${share(s.leadHalf, s.numeric)}`,
    `  answer shows every number ${share(s.answerAll, s.numeric)}, at least half ${share(s.answerHalf, s.numeric)}; numbers shown per answer ${s.meanShown.toFixed(1)}`,
    `  lead of the asked kind ${share(s.leadAskedKind, s.askingQuantity)} of those asking a quantity; leads citing a page that answers ${share(s.leadCitesGold, s.leadsCiting)}`,
    `  answer cites a page that answers ${share(s.citesGold, s.questions)}; refused ${s.refused}; "high" ${s.high}, of the numeric ones showing every number ${share(s.highNumericAll, s.highNumeric)}`,
  ].join('\n');
}

/** The summary of all records, and of each half where the questions were split. */
export function summarizeByHalf(records: readonly AnswerRecord[]): { all: AnswersSummary; tune?: AnswersSummary; frozen?: AnswersSummary } {
  const all = summarizeAnswers(records);
  if (records.every((r) => r.half === null)) return { all };
  return { all, tune: summarizeAnswers(records.filter((r) => r.half === 'tune')), frozen: summarizeAnswers(records.filter((r) => r.half === 'frozen')) };
}
