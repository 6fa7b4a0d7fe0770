/**
 * One question's verdict: every figure the report shows for it, and why it failed if it did.
 * A question passes when it was answered without error, refused exactly when it should, and (when
 * answerable) cites a gold page with every citation true to the index.
 */
import type { AnswerTimings } from '../../../widget/answer/types.ts';
import { detectLang } from '../../../widget/core/tokenizer/index.ts';
import type { TwinLookup } from '../metrics.ts';
import type { EvalQuestion } from '../questions.ts';
import type { AnswerRecord } from './answer-metrics.ts';
import { citesGold, citesGoldLenient } from './answer-metrics.ts';
import { answerF1 } from './answer-overlap.ts';
import { citationProblem, type CitationProblem, type PageTexts } from './citation-validity.ts';
import { canonicalQuestion, retrievalRanks, type RetrievalRanks } from './retrieval.ts';

export type Failure = 'error' | 'false-refusal' | 'missed-refusal' | 'no-gold-citation' | 'invalid-citation';

export interface ScoredCitation {
  n: number;
  file: string;
  page: number;
  quote: string;
  problem: CitationProblem;
  /** The cited page establishes a fact of the question. */
  gold: boolean;
}

export interface ScoredQuestion extends RetrievalRanks {
  id: string;
  question: string;
  domain: string | null;
  difficulty: string | null;
  lang: 'he' | 'en';
  answerable: boolean;
  error: string | null;
  text: string | null;
  confidence: string | null;
  refused: boolean | null;
  refusal: string | null;
  citations: ScoredCitation[];
  /** Answerable only: the answer (or its closest clauses) cites a gold page. */
  citationHit: boolean | null;
  /** The same, a near-identical twin of a gold page counting as gold. */
  citationHitLenient: boolean | null;
  reference: string | null;
  f1: number | null;
  judge: number | null;
  timings: AnswerTimings | null;
  failures: Failure[];
}

export interface ScoringContext {
  k: number;
  pages: PageTexts;
  aliases: ReadonlyMap<string, string>;
  twins?: TwinLookup;
}

export function scoreQuestion(record: AnswerRecord, q: EvalQuestion, ctx: ScoringContext): ScoredQuestion {
  const a = record.answer;
  const canonical = canonicalQuestion(q, ctx.aliases);
  const gold = canonical.facts.flat();
  const canon = (file: string) => ctx.aliases.get(file) ?? file;
  const citations: ScoredCitation[] = (a?.citations ?? []).map((c) => ({
    n: c.n,
    file: c.file,
    page: c.page,
    quote: c.quote,
    problem: citationProblem(c, ctx.pages),
    gold: gold.some((g) => g.file === canon(c.file) && (g.page === null || g.page === c.page)),
  }));
  const citationHit = a && q.answerable ? citesGold(a, canonical.facts, ctx.aliases) : null;
  const citationHitLenient = a && q.answerable ? (ctx.twins ? citesGoldLenient(a, canonical.facts, ctx.aliases, ctx.twins) : citationHit) : null;
  const failures: Failure[] = [];
  if (!a) failures.push('error');
  else if (q.answerable) {
    if (a.refused) failures.push('false-refusal');
    else if (!citationHit) failures.push('no-gold-citation');
  } else if (!a.refused) failures.push('missed-refusal');
  if (citations.some((c) => c.problem)) failures.push('invalid-citation');
  const ranks = a ? retrievalRanks(q, a, ctx.k, ctx.aliases, ctx.twins) : { fileRank: null, pageRank: null, fileRankLenient: null, pageRankLenient: null };
  return {
    id: q.id,
    question: q.question,
    domain: q.domain,
    difficulty: q.difficulty,
    lang: detectLang(q.question),
    answerable: q.answerable,
    error: record.error,
    text: a?.text ?? null,
    confidence: a?.confidence ?? null,
    refused: a?.refused ?? null,
    refusal: a?.refusal ?? null,
    citations,
    citationHit,
    citationHitLenient,
    reference: q.answers[0] ?? null,
    // A refusal's closest clauses are not an answer: its overlap is 0, not the clauses' overlap.
    f1: a && q.answerable ? (a.refused ? (q.answers.length ? 0 : null) : answerF1(a.text, q.answers)) : null,
    judge: null,
    timings: a?.timings ?? null,
    failures,
    ...ranks,
  };
}
