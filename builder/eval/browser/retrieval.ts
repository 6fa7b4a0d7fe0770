/**
 * Retrieval figures from the widget's own ranked passages (`answer.retrieved`), scored with the
 * same functions as the Node eval so that the two can be compared figure for figure.
 */
import type { Answer } from '../../../widget/answer/types.ts';
import { rankedPages } from '../../../widget/core/retrieval/retriever.ts';
import { lenientFileRank, lenientPageRank, scoreQuestion, type TwinLookup } from '../metrics.ts';
import type { EvalQuestion } from '../questions.ts';

export interface RetrievalRanks {
  fileRank: number | null;
  pageRank: number | null;
  fileRankLenient: number | null;
  pageRankLenient: number | null;
}

/** Gold refs named by a dropped identical copy point at the file the index kept. */
export function canonicalQuestion(q: EvalQuestion, aliases: ReadonlyMap<string, string>): EvalQuestion {
  if (aliases.size === 0) return q;
  return { ...q, facts: q.facts.map((f) => f.map((r) => ({ ...r, file: aliases.get(r.file) ?? r.file }))) };
}

/** Ranks of the first fact among the first `k` distinct pages; null ranks for unanswerable questions. */
export function retrievalRanks(q: EvalQuestion, answer: Answer, k: number, aliases: ReadonlyMap<string, string> = new Map(), twins?: TwinLookup): RetrievalRanks {
  if (!q.answerable) return { fileRank: null, pageRank: null, fileRankLenient: null, pageRankLenient: null };
  const canonical = canonicalQuestion(q, aliases);
  const ranked = rankedPages([...answer.retrieved].sort((a, b) => a.rank - b.rank)).slice(0, k);
  const strict = scoreQuestion(canonical, ranked);
  const fact = canonical.facts[0] ?? [];
  return {
    fileRank: strict.fileRank,
    pageRank: strict.pageRank,
    fileRankLenient: twins ? lenientFileRank(fact, ranked, twins) : strict.fileRank,
    pageRankLenient: twins ? lenientPageRank(fact, ranked, twins) : strict.pageRank,
  };
}
