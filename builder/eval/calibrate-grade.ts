/**
 * Calibrates the answer loop's thresholds on the development questions:
 *   npx tsx builder/eval/calibrate-grade.ts [--index .tmp/harel] [--questions ../shared/data/harel/questions/dev-v2.json]
 * Runs the real loop (extractive engine, in-thread search) over every question for each candidate
 * grading threshold and prints: refusal rate on answerable and on unanswerable questions, how often
 * an answer cites a gold page, how often a kept passage is on a gold page, and the confidence
 * tiers. Off-topic detection, refusals on evidence and the tiers themselves are fitted by
 * fit-answerability.ts.
 * Searches are cached per request, so each threshold costs only grading and generation.
 */
import { parseArgs } from 'node:util';
import type { Answer } from '../../widget/answer/types.ts';
import { ExtractiveEngine } from '../../widget/engines/extractive.ts';
import { gradeFeatures } from '../../widget/loop/grade.ts';
import { runAnswerLoop } from '../../widget/loop/machine.ts';
import { LocalSearchService } from '../../widget/search/local-search-service.ts';
import type { SearchRequest, SearchResponse, SearchService } from '../../widget/search/search-service.ts';
import { readIndexFolder } from '../read-index-folder.ts';
import { loadQuestions, type EvalQuestion, type SourceRef } from './questions.ts';
import { aliasMap } from './run-eval.ts';

function cached(inner: SearchService): SearchService {
  const memo = new Map<string, Promise<SearchResponse>>();
  return {
    load: (o) => inner.load(o),
    dispose: () => inner.dispose(),
    route: (query) => inner.route(query),
    search(request: SearchRequest, signal?: AbortSignal) {
      const key = JSON.stringify(request);
      if (!memo.has(key)) memo.set(key, inner.search(request, signal));
      return memo.get(key)!;
    },
  };
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : '—');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      index: { type: 'string', default: '.tmp/harel' },
      questions: { type: 'string', default: '../shared/data/harel/questions/dev-v2.json' },
      thresholds: { type: 'string', default: '0.3,0.35,0.375,0.4' },
    },
  });
  const index = await readIndexFolder(values.index!);
  const search = cached(LocalSearchService.fromIndex(index));
  const questions = await loadQuestions(values.questions!);
  const aliases = aliasMap(index.documents);
  const onGold = (q: EvalQuestion, p: { file: string; page: number }) =>
    q.facts.some((fact: SourceRef[]) => fact.some((r) => (aliases.get(r.file) ?? r.file) === p.file && (r.page === null || r.page === p.page)));
  const engine = new ExtractiveEngine();

  console.log(`${questions.length} questions (${questions.filter((q) => q.answerable).length} answerable), index ${values.index}`);
  console.log('threshold | refused answerable | refused unanswerable | answer cites gold page | kept on gold page | kept q with gold | tiers h/m/l (answerable) | p50 ms');
  for (const t of values.thresholds!.split(',').map(Number)) {
    let refusedA = 0,
      refusedU = 0,
      citesGold = 0,
      kept = 0,
      keptGold = 0,
      keptQGold = 0,
      goldRetrieved = 0;
    const tiers = { high: 0, medium: 0, low: 0 };
    const tierGold = { high: 0, medium: 0, low: 0 };
    const ms: number[] = [];
    for (const q of questions) {
      const answer: Answer = await runAnswerLoop({ question: q.question, history: [] }, { search, engine }, { tuning: { minRelevance: t } });
      ms.push(answer.timings.total);
      // What grading kept on the first pass, measured against the gold pages.
      const first = await search.search({ query: answer.searchedQuery, domain: null, k: 10 });
      const features = gradeFeatures(answer.searchedQuery, first.passages).filter((f) => f.relevance >= t);
      if (!q.answerable) {
        if (answer.refused) refusedU++;
        continue;
      }
      if (answer.refused) refusedA++;
      tiers[answer.confidence]++;
      const gold = !answer.refused && answer.citations.some((c) => onGold(q, c));
      if (gold) citesGold++;
      if (gold) tierGold[answer.confidence]++;
      kept += features.length;
      const goldKept = features.filter((f) => onGold(q, f.passage)).length;
      keptGold += goldKept;
      if (goldKept > 0) keptQGold++;
      if (first.passages.some((p) => onGold(q, p))) goldRetrieved++;
    }
    ms.sort((a, b) => a - b);
    const a = questions.filter((q) => q.answerable).length;
    const u = questions.length - a;
    console.log(
      `${t} | ${pct(refusedA, a)} | ${pct(refusedU, u)} | ${pct(citesGold, a)} | ${pct(keptGold, kept)} of ${kept} | ${pct(keptQGold, goldRetrieved)} of ${goldRetrieved} | ${tiers.high}/${tiers.medium}/${tiers.low} (gold cited ${tierGold.high}/${tierGold.medium}) | ${ms[Math.floor(ms.length / 2)].toFixed(0)}`,
    );
  }
}

await main();
