/**
 * The fitting data: every development question asked through the real answer loop (in-thread
 * search, extractive engine) with a model that never refuses, so each question's evidence and the
 * answer it would get are both recorded. Labels come from the question files: answerable or not,
 * off-topic or not, and whether the answer cites a page that establishes the question's facts
 * (a near-identical twin page counts).
 */
import { readFile } from 'node:fs/promises';
import type { Answer, ChatTurn } from '../../../widget/answer/types.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { ExtractiveEngine } from '../../../widget/engines/extractive.ts';
import type { AnswerabilityModel } from '../../../widget/loop/answerability.ts';
import { EVIDENCE_FEATURES } from '../../../widget/loop/evidence.ts';
import { runAnswerLoop } from '../../../widget/loop/machine.ts';
import { LocalSearchService, type QueryEmbedder } from '../../../widget/search/local-search-service.ts';
import { citesGoldLenient } from '../browser/answer-metrics.ts';
import type { EvalQuestion } from '../questions.ts';
import { aliasMap, twinLookup } from '../run-eval.ts';

export interface FitRow {
  /** Which question set (dev-v2, heq, off-topic@harel…). */
  set: string;
  id: string;
  /** Rows sharing a group always fall in the same fold (one question asked of two indexes). */
  group: string;
  question: string;
  answerable: boolean;
  offTopic: boolean;
  features: number[];
  /** The loop answered (did not refuse for lack of passages or support). */
  answered: boolean;
  /** Every claim of the answer is supported by its citations. */
  fullySupported: boolean;
  /** The answer (or a refusal's closest clauses) cites a page establishing a fact, twins counted. */
  citesGold: boolean;
  /**
   * Off-topic rows: the question asked again right after an insurance question was searched the
   * same way as alone (not taken as a follow-up), so every decision about it is the same.
   */
  sameAfterContext?: boolean;
  /** How the question was searched ('hybrid' when the set had a query embedder and the index vectors). */
  searchMode?: 'bm25' | 'hybrid';
}

/** A model under which the loop never refuses on evidence and never flags off-topic. */
export const COLLECTING_MODEL: AnswerabilityModel = (() => {
  const zero = { features: EVIDENCE_FEATURES, mean: EVIDENCE_FEATURES.map(() => 0), scale: EVIDENCE_FEATURES.map(() => 1), weights: EVIDENCE_FEATURES.map(() => 0), bias: 0 };
  return { version: 0, offTopic: { ...zero, threshold: 2, refusedThreshold: 2 }, answerable: { ...zero, threshold: -1 }, correct: { ...zero, high: -1 } };
})();

export interface QuestionSet {
  name: string;
  index: LoadedIndex;
  questions: readonly EvalQuestion[];
  offTopic: boolean;
  /** Group key of a question (default: set and id). */
  group?: (q: EvalQuestion) => string;
  /** Insurance questions asked before each question, in turn, to check a topic change. */
  context?: readonly string[];
  /** Search hybrid, as a device with the query model does (default: BM25 only). */
  embedQuery?: QueryEmbedder;
}

export async function collectRows(sets: readonly QuestionSet[], onProgress?: (set: string, done: number, total: number) => void): Promise<FitRow[]> {
  const rows: FitRow[] = [];
  const engine = new ExtractiveEngine();
  for (const set of sets) {
    const search = LocalSearchService.fromIndex(set.index, set.embedQuery ? { embedQuery: set.embedQuery } : {});
    const aliases = aliasMap(set.index.documents);
    const twins = twinLookup(set.index.documents, set.index.chunks);
    let done = 0;
    for (const q of set.questions) {
      const answer: Answer = await runAnswerLoop({ question: q.question, history: [] }, { search, engine }, { tuning: { answerability: COLLECTING_MODEL } });
      const features = answer.evidence!.features;
      let sameAfterContext: boolean | undefined;
      if (set.context?.length) {
        const before = set.context[done % set.context.length];
        const history: ChatTurn[] = [
          { role: 'user', text: before, at: 0 },
          { role: 'assistant', text: '…', at: 1 },
        ];
        const after = await runAnswerLoop({ question: q.question, history }, { search, engine }, { tuning: { answerability: COLLECTING_MODEL } });
        sameAfterContext = after.searchedQuery === answer.searchedQuery;
      }
      rows.push({
        set: set.name,
        id: q.id,
        group: set.group?.(q) ?? `${set.name}/${q.id}`,
        question: q.question,
        answerable: q.answerable && !set.offTopic,
        offTopic: set.offTopic,
        features: EVIDENCE_FEATURES.map((f) => features[f]),
        answered: !answer.refused,
        fullySupported: answer.confidence === 'high',
        citesGold: q.answerable && !set.offTopic && citesGoldLenient(answer, q.facts, aliases, twins),
        ...(sameAfterContext === undefined ? {} : { sameAfterContext }),
        searchMode: answer.searchMode === 'hybrid' ? 'hybrid' : 'bm25',
      });
      if (++done % 50 === 0 || done === set.questions.length) onProgress?.(set.name, done, set.questions.length);
    }
  }
  return rows;
}

/** The insurance questions asked before the off-topic ones (builder/eval/sets/insurance-context.json). */
export async function loadContextQuestions(path: string): Promise<string[]> {
  return (JSON.parse(await readFile(path, 'utf8')) as { question: string }[]).map((q) => q.question);
}

/** The project's own off-topic questions (builder/eval/sets/off-topic.json) as evaluation questions. */
export async function loadOffTopicSet(path: string): Promise<EvalQuestion[]> {
  const items = JSON.parse(await readFile(path, 'utf8')) as { id: string; question: string; category?: string }[];
  return items.map((q) => ({ id: q.id, question: q.question, domain: q.category ?? null, difficulty: null, kind: 'off-topic', answerable: false, facts: [], answers: [] }));
}
