/**
 * Calibrates the answer loop's thresholds on the development questions:
 *   npx tsx builder/eval/calibrate-grade.ts [--index .tmp/harel] [--questions ../shared/data/harel/questions/dev-v2.json]
 * Runs the real loop (extractive engine, in-thread search) over every question for each candidate
 * grading threshold and prints: refusal rate on answerable and on unanswerable questions, how often
 * an answer cites a gold page, how often a kept passage is on a gold page, and the confidence
 * tiers. Off-topic detection, refusals on evidence and the tiers themselves are fitted by
 * fit-answerability.ts.
 * Searches are cached per request, so each threshold costs only grading and generation.
 * `--write <threshold>` (one of those swept) writes it into widget/loop/grade-thresholds.ts, which
 * grading reads, with this command, its inputs' hash and the sweep's table:
 *   npx tsx builder/eval/calibrate-grade.ts --index .tmp/harel --write 0.35
 */
import { writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Answer } from '../../widget/answer/types.ts';
import { ExtractiveEngine } from '../../widget/engines/extractive.ts';
import { gradeFeatures } from '../../widget/loop/grade.ts';
import { runAnswerLoop } from '../../widget/loop/machine.ts';
import { LocalSearchService } from '../../widget/search/local-search-service.ts';
import { contentWords } from '../../widget/text/terms.ts';
import type { SearchRequest, SearchResponse, SearchService } from '../../widget/search/search-service.ts';
import { readIndexFolder } from '../read-index-folder.ts';
import { commandLine, gradeThresholdsSource, provenance } from './fit/constants-source.ts';
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

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const THRESHOLDS_FILE = 'widget/loop/grade-thresholds.ts';

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : '—');

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      index: { type: 'string', default: '.tmp/harel' },
      questions: { type: 'string', default: '../shared/data/harel/questions/dev-v2.json' },
      thresholds: { type: 'string', default: '0.3,0.35,0.375,0.4' },
      write: { type: 'string' },
    },
  });
  const swept = values.thresholds!.split(',').map(Number);
  const chosen = values.write === undefined ? null : Number(values.write);
  if (chosen !== null && !swept.includes(chosen)) throw new Error(`--write ${values.write} is not among --thresholds ${values.thresholds}: write a threshold the sweep measured.`);
  const index = await readIndexFolder(values.index!);
  const search = cached(LocalSearchService.fromIndex(index));
  const questions = await loadQuestions(values.questions!);
  const aliases = aliasMap(index.documents);
  const onGold = (q: EvalQuestion, p: { file: string; page: number }) =>
    q.facts.some((fact: SourceRef[]) => fact.some((r) => (aliases.get(r.file) ?? r.file) === p.file && (r.page === null || r.page === p.page)));
  const engine = new ExtractiveEngine();

  const table = [
    `${questions.length} questions (${questions.filter((q) => q.answerable).length} answerable), index ${values.index}`,
    'threshold | refused answerable | refused unanswerable | answer cites gold page | kept on gold page | kept q with gold | tiers h/m/l (answerable) | p50 ms',
  ];
  for (const line of table) console.log(line);
  for (const t of swept) {
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
      const features = gradeFeatures(contentWords(answer.searchedQuery), first.passages).filter((f) => f.relevance >= t);
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
    const row = `${t} | ${pct(refusedA, a)} | ${pct(refusedU, u)} | ${pct(citesGold, a)} | ${pct(keptGold, kept)} of ${kept} | ${pct(keptQGold, goldRetrieved)} of ${goldRetrieved} | ${tiers.high}/${tiers.medium}/${tiers.low} (gold cited ${tierGold.high}/${tierGold.medium}) | ${ms[Math.floor(ms.length / 2)].toFixed(0)}`;
    // Timings differ run to run: the written table keeps the figures a rerun reproduces.
    table.push(row.replace(/ \| \d+$/, ''));
    console.log(row);
  }
  if (chosen !== null) {
    const inputs = [
      { label: basename(values.questions!), file: values.questions! },
      { label: `index ${index.manifest.buildId}`, text: index.manifest.buildId },
    ];
    const header = [...(await provenance(commandLine('builder/eval/calibrate-grade.ts', process.argv.slice(2)), inputs)), '', ...table.map((l) => l.replace(/ \| p50 ms$/, ''))];
    await writeFile(join(ROOT, THRESHOLDS_FILE), gradeThresholdsSource(chosen, header));
    console.log(`\nwrote ${THRESHOLDS_FILE} (GRADE_MIN_RELEVANCE = ${chosen})`);
  }
}

await main();
