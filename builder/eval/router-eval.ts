/**
 * Domain-router evaluation: train on the Harel corpus, route the development questions, print
 * accuracy, coverage at confidence thresholds, and the model's JSON size.
 * Run: npx tsx builder/eval/router-eval.ts [dataDir]
 */
import { routeQuery, trainRouter, type RouterModel } from '../../widget/core/retrieval/route.ts';
import { hasHarelData, loadCorpus, loadQuestions, routerDoc, HAREL_DATA_DIR, type DevQuestion } from './harel-corpus.ts';

export interface RouterEvaluation {
  total: number;
  accuracy: number;
  /** The right domain among the two best: what a retriever searching two domains would get. */
  top2Accuracy: number;
  coverage: number;
  confidentAccuracy: number;
}

export function evaluateRouter(model: RouterModel, questions: DevQuestion[], minConfidence = model.minConfidence): RouterEvaluation {
  let correct = 0,
    top2 = 0,
    confident = 0,
    confidentCorrect = 0;
  for (const q of questions) {
    const r = routeQuery(model, q.question, { minConfidence });
    const top = r.scores[0]?.domain;
    if (top === q.domain) correct++;
    if (r.scores.slice(0, 2).some((s) => s.domain === q.domain)) top2++;
    if (r.domain !== null) {
      confident++;
      if (r.domain === q.domain) confidentCorrect++;
    }
  }
  return {
    total: questions.length,
    accuracy: correct / questions.length,
    top2Accuracy: top2 / questions.length,
    coverage: confident / questions.length,
    confidentAccuracy: confident ? confidentCorrect / confident : 0,
  };
}

function main(): void {
  const dataDir = process.argv[2] ?? HAREL_DATA_DIR;
  if (!hasHarelData(dataDir)) {
    console.error(`No Harel corpus under ${dataDir}.`);
    process.exit(1);
  }
  const started = performance.now();
  const model = trainRouter(loadCorpus(dataDir).map(routerDoc));
  const json = JSON.stringify(model);
  console.log(
    `trained in ${((performance.now() - started) / 1000).toFixed(1)} s: ${model.domains.length} domains, ${model.terms.length} terms, ${model.curated.length} curated phrases, JSON ${(json.length / 1024).toFixed(0)} KB (${(Buffer.byteLength(json) / 1024).toFixed(0)} KB UTF-8)`,
  );

  const sets: [string, DevQuestion[]][] = [
    ['dev-v2', loadQuestions('dev-v2', dataDir)],
    ['dev-v3', loadQuestions('dev-v3', dataDir)],
  ];
  sets.push(['all', sets.flatMap(([, q]) => q)]);
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  for (const [name, questions] of sets) {
    const e = evaluateRouter(model, questions);
    console.log(
      `${name}: ${e.total} questions, top-1 accuracy ${pct(e.accuracy)}, top-2 ${pct(e.top2Accuracy)}; at minConfidence ${model.minConfidence}: coverage ${pct(e.coverage)}, accuracy when confident ${pct(e.confidentAccuracy)}`,
    );
  }
  const all = sets[2][1];
  console.log('threshold sweep (all questions): threshold coverage confident-accuracy');
  for (const t of [0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]) {
    const e = evaluateRouter(model, all, t);
    console.log(`  ${t.toFixed(1)}  ${pct(e.coverage).padStart(6)}  ${pct(e.confidentAccuracy).padStart(6)}`);
  }
  const misses = new Map<string, number>();
  for (const q of all) {
    const top = routeQuery(model, q.question).scores[0].domain;
    if (top !== q.domain) misses.set(`${q.domain}→${top}`, (misses.get(`${q.domain}→${top}`) ?? 0) + 1);
  }
  console.log(
    `errors (expected→routed): ${[...misses.entries()]
      .sort((a, b) => b[1] - a[1])
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) main();
