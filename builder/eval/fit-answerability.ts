/**
 * Fits the answer loop's answerability models (widget/loop/answerability.ts) on development data,
 * with cross-validation, and writes their coefficients and thresholds:
 *
 *   npx tsx builder/eval/fit-answerability.ts [--harel .tmp/harel] [--heq .tmp/heq] [--demo .tmp/demo-bm25]
 *       [--folds 5] [--write] [--rows .tmp/answerability-rows.json] [--reuse]
 *   npx tsx builder/eval/fit-answerability.ts --hybrid [--harel .tmp/harel-e5-q4f32] [--heq .tmp/heq-e5-q4f32]
 *       [--demo demo/.generated/demo-index] [--model-dir models] [--vectors-cache .tmp/fit-fusion-queries.json]
 *       [--rows .tmp/answerability-rows-hybrid.json] [--write]
 *   [--seed 12]: the folds' shuffle; [--skip-demo]: the demo's sets left out of the figures
 *
 * Data (read from ../shared/data, never copied): dev-v2 and dev-v3 over the Harel index, HeQ
 * validation over its own index, the demo questions over the demo index, and the project's own
 * off-topic set (builder/eval/sets/off-topic.json) over the Harel and the demo index. Every
 * question runs through the real loop (see fit/collect.ts). Folds split by question (one question
 * asked of two indexes stays in one fold); each fold's models and thresholds are fitted on the
 * other folds only, and every figure printed under "held-out" is measured on questions the fold's
 * models never saw. `--write` then fits on everything and writes
 * widget/loop/answerability-weights.ts.
 *
 * `--hybrid` searches as a device with the query model does (BM25 and E5 vectors, indexes built
 * with --model-dir models; questions embedded as the widget embeds them and cached), and reports
 * on the same folds the lexical models beside two sets with semantic features (evidence.ts,
 * SEMANTIC_FEATURES); `--write` then writes the shipped one (HYBRID_SHIPPED) to
 * widget/loop/answerability-weights-hybrid.ts. The demo's sets are searched over the demo's index
 * with the real E5 (`npm run build` writes it where models/ holds the model), and left out when
 * there is none. docs/how-it-answers.md ("With E5's evidence") has the figures.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile, mkdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { assess, type AnswerabilityModel } from '../../widget/loop/answerability.ts';
import { EVIDENCE_FEATURES, LEXICAL_FEATURES, type EvidenceFeature, type EvidenceVector } from '../../widget/loop/evidence.ts';
import { buildIndex } from '../pipeline/build-index.ts';
import { INDEX_FORMAT_VERSION } from '../../widget/core/format/manifest.ts';
import type { LoadedIndex } from '../../widget/core/format/read-index.ts';
import { readIndexFolder } from '../read-index-folder.ts';
import { collectRows, loadContextQuestions, loadOffTopicSet, type FitRow, type QuestionSet } from './fit/collect.ts';
import { commandLine, provenance } from './fit/constants-source.ts';
import { assignFolds } from './fit/folds.ts';
import { cachedQueryEmbedder } from './fit/query-vectors.ts';
import { fitLogistic, predictLogistic, type FittedLogistic } from './fit/logistic.ts';
import { highThreshold, offTopicRefusedThreshold, offTopicThreshold, refusalThreshold } from './fit/thresholds.ts';
import { loadQuestions } from './questions.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DATA = join(ROOT, '../shared/data');

/** What the thresholds promise (the issue's targets, with a margin for fold-to-fold spread). */
export const TARGETS = { maxFalseRefusal: 0.08, highPrecision: 0.85, highMinSupport: 5 };
/** Sets whose answerable questions bound the refusal threshold: the insurers' own. */
const INSURANCE_SETS = new Set(['dev-v2', 'dev-v3', 'demo']);
/**
 * Sets the correctness model learns from and whose answers set "high": the real insurer's
 * questions. The demo's are easy (nine in ten answers right) and HeQ's are another kind of text:
 * either one pooled in let the threshold pass answers that are right only half the time on
 * held-out dev-v2 questions (measured: 5/10 and 3/7 right, against 8/10 with Harel's alone).
 */
const CORRECT_SETS = new Set(['dev-v2', 'dev-v3', 'off-topic@harel']);
/**
 * The correctness model reads five features only: with all of them, 138 questions let it memorise
 * (held-out "high" answers right 60 % of the time over six fold shuffles, against 80 % with these
 * five and off-topic questions as wrong answers; builder/eval/README.md).
 */
export const CORRECT_FEATURES: readonly EvidenceFeature[] = ['sentenceCoverage', 'topRelevance', 'topVsMean', 'margin', 'routeConfidence'];
/** Sets whose answers set the "high" threshold: the real insurer's questions. */
const HIGH_SETS = new Set(['dev-v2', 'dev-v3']);
/**
 * Row weights per set. HeQ weighs in full for off-topic and answerability: it is the only index
 * of general knowledge, whose questions must not look off-topic or unanswerable to the models
 * (at 0.2 the refusal threshold cost HeQ the same false refusals for fewer right refusals).
 */
const SET_WEIGHT: Record<string, number> = {};
/** L2 penalties, chosen by held-out folds (0.1 to 10 tried; see the README's figures). */
const L2 = { offTopic: 0.1, answerable: 1, correct: 3 };
/** The second off-topic set (builder/eval/sets/off-topic-fresh.json): evaluation only, never fitted on. */
const FRESH = 'off-topic-fresh';
const isFresh = (r: FitRow) => r.set.startsWith(FRESH);

/** Share of HeQ's questions the off-topic threshold may flag (its own false refusals). */
const OFF_TOPIC_GENERAL_BUDGET = 0.02;

/**
 * The features each model set reads. `lexical`: what every search yields, the models every device
 * runs today. `semantic`: the same and all of E5's evidence (SEMANTIC_FEATURES), measurable only on
 * rows searched hybrid; the correctness model adds the two that speak of the best page.
 * `semantic-top`: the lexical features and the question's distance to the corpus only (semTop,
 * semMargin), the correctness model unchanged: fewer weights for the same rows. `semantic-corpus`:
 * those and the question's nearness to the index as a whole (semCorpus, corpus-centroid.ts) in
 * both models; `corpus-off-topic`: semCorpus in the off-topic model only. Over six fold shuffles
 * (seeds 12, 1–5), held-out: off-topic flagged 97.4–98.7 % (Harel) and 96.1–98.0 % (demo) against
 * 93.4–94.7 % and 85.5–87.5 % for semantic-top, HeQ flagged 0.2–0.4 % against 2.1–2.7 %, no
 * dev-v2 question flagged in any shuffle, refusals unchanged; semantic-corpus flags one dev-v2
 * question in four shuffles of six and refuses one more answerable demo question.
 * The `quote-` sets add the similarity of the first quoted sentence's first twenty words to the
 * question (semQuote, measured once the answer has its quote): to the correctness model
 * (`quote-correct`, shipped), the answerable one (`quote-answerable`), both, or both with semCorpus
 * in the answerable model too. Over the same six shuffles, quote-correct against corpus-off-topic:
 * dev-v2 "high" 88 answers, 78.4 % right, against 59 and 71.2 %, none unanswerable; uncovered demo
 * topics answered "high" 6 in all against 11; HeQ "high" right 81.6 % against 79.5 %; refusals
 * unchanged. In the answerable model it refuses more of HeQ's unanswerable questions (106–121
 * against 102–112) but up to two fewer uncovered demo topics: not shipped. semAgree in the
 * correctness model beside it (`quote-agree-correct`): 77 of 101 "high" right (76.2 %), not shipped.
 */
/** What the off-topic model may read: everything known at the route step, before the answer has a quote (semQuote). */
const ROUTE_FEATURES = EVIDENCE_FEATURES.filter((f) => f !== 'semQuote');
export const FEATURE_SETS = {
  lexical: { features: LEXICAL_FEATURES, correct: CORRECT_FEATURES },
  semantic: { features: EVIDENCE_FEATURES, offTopic: ROUTE_FEATURES, correct: [...CORRECT_FEATURES, 'semTop', 'semAgree'] },
  'semantic-top': { features: [...LEXICAL_FEATURES, 'semTop', 'semMargin'], correct: CORRECT_FEATURES },
  'semantic-corpus': { features: [...LEXICAL_FEATURES, 'semTop', 'semMargin', 'semCorpus'], correct: CORRECT_FEATURES },
  'corpus-off-topic': { features: [...LEXICAL_FEATURES, 'semTop', 'semMargin'], offTopic: [...LEXICAL_FEATURES, 'semTop', 'semMargin', 'semCorpus'], correct: CORRECT_FEATURES },
  'quote-answerable': { features: [...LEXICAL_FEATURES, 'semTop', 'semMargin', 'semQuote'], offTopic: [...LEXICAL_FEATURES, 'semTop', 'semMargin', 'semCorpus'], correct: CORRECT_FEATURES },
  'quote-both': { features: [...LEXICAL_FEATURES, 'semTop', 'semMargin', 'semQuote'], offTopic: [...LEXICAL_FEATURES, 'semTop', 'semMargin', 'semCorpus'], correct: [...CORRECT_FEATURES, 'semQuote'] },
  'quote-agree-correct': {
    features: [...LEXICAL_FEATURES, 'semTop', 'semMargin'],
    offTopic: [...LEXICAL_FEATURES, 'semTop', 'semMargin', 'semCorpus'],
    correct: [...CORRECT_FEATURES, 'semQuote', 'semAgree'],
  },
  'quote-correct': { features: [...LEXICAL_FEATURES, 'semTop', 'semMargin'], offTopic: [...LEXICAL_FEATURES, 'semTop', 'semMargin', 'semCorpus'], correct: [...CORRECT_FEATURES, 'semQuote'] },
  'quote-corpus': {
    features: [...LEXICAL_FEATURES, 'semTop', 'semMargin', 'semCorpus', 'semQuote'],
    offTopic: [...LEXICAL_FEATURES, 'semTop', 'semMargin', 'semCorpus'],
    correct: [...CORRECT_FEATURES, 'semQuote'],
  },
} satisfies Record<string, FeatureSet>;
/** What each model reads: `features` the off-topic and answerable models, unless `offTopic` names the off-topic model's own. */
interface FeatureSet {
  features: readonly EvidenceFeature[];
  offTopic?: readonly EvidenceFeature[];
  correct: readonly EvidenceFeature[];
}
const offTopicFeatures = (set: FeatureSet) => {
  const features = set.offTopic ?? set.features;
  // The route step decides off-topic before any quote exists: a model reading semQuote there would read 0.
  if (features.includes('semQuote')) throw new Error('an off-topic model cannot read semQuote (known only after the route step)');
  return features;
};
/** The set `--hybrid --write` ships: the one that won on held-out folds over six fold shuffles. */
const HYBRID_SHIPPED: keyof typeof FEATURE_SETS = 'quote-correct';

interface Models {
  set: FeatureSet;
  offTopic: FittedLogistic & { threshold: number; refusedThreshold: number };
  answerable: FittedLogistic & { threshold: number };
  correct: FittedLogistic & { high: number };
}

/** A row's values of `features` (rows store every feature, in EVIDENCE_FEATURES order). */
const columns = (features: readonly EvidenceFeature[]) => {
  const at = features.map((f) => EVIDENCE_FEATURES.indexOf(f));
  return (r: FitRow) => at.map((j) => r.features[j]);
};

function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}
const INSURANCE_WORDS = EVIDENCE_FEATURES.indexOf('insuranceWords');
const SMALL_TALK = EVIDENCE_FEATURES.indexOf('smallTalk');

function fitModels(rows: readonly FitRow[], set: FeatureSet = FEATURE_SETS.lexical): Models {
  const x = columns(set.features);
  const xOff = columns(offTopicFeatures(set));
  const correctRow = columns(set.correct);
  const fit = (subset: readonly FitRow[], label: (r: FitRow) => boolean, l2: number, cols: (r: FitRow) => number[] = x) =>
    fitLogistic(
      subset.map(cols),
      subset.map((r) => (label(r) ? 1 : 0)),
      subset.map((r) => SET_WEIGHT[r.set] ?? 1),
      { l2 },
    );
  const offTopic = fit(rows, (r) => r.offTopic, L2.offTopic, xOff);
  const answerable = fit(rows, (r) => r.answerable, L2.answerable);
  // The false-refusal budget holds for the insurers' questions and for general knowledge alike.
  const budget = (keep: (r: FitRow) => boolean) =>
    refusalThreshold(
      rows.filter((r) => keep(r) && r.answerable).map((r) => ({ p: predictLogistic(answerable, x(r)), refusedAnyway: !r.answered })),
      TARGETS.maxFalseRefusal,
    );
  const refuse = Math.min(
    budget((r) => INSURANCE_SETS.has(r.set)),
    budget((r) => r.set === 'heq'),
  );

  const unguarded = (r: FitRow) => !r.offTopic && r.features[INSURANCE_WORDS] === 0 && r.features[SMALL_TALK] === 0;
  const scored = (keep: (r: FitRow) => boolean) => rows.filter(keep).map((r) => ({ p: predictLogistic(offTopic, xOff(r)), refused: predictLogistic(answerable, x(r)) < refuse }));
  const onTopic = scored((r) => unguarded(r) && INSURANCE_SETS.has(r.set));
  const general = scored((r) => r.set === 'heq' && r.features[INSURANCE_WORDS] === 0);
  const threshold = Math.max(
    offTopicThreshold(onTopic.map((s) => s.p)),
    quantile(
      general.map((s) => s.p),
      1 - OFF_TOPIC_GENERAL_BUDGET,
    ),
  );
  const refusedThreshold = Math.min(threshold, offTopicRefusedThreshold(onTopic, general, threshold, Math.floor(OFF_TOPIC_GENERAL_BUDGET * general.length)));

  const correct = fit(
    rows.filter((r) => CORRECT_SETS.has(r.set) && r.answered),
    (r) => r.citesGold,
    L2.correct,
    correctRow,
  );
  const candidates = rows
    .filter((r) => HIGH_SETS.has(r.set) && r.answered && r.fullySupported)
    .filter((r) => predictLogistic(answerable, x(r)) >= refuse)
    .map((r) => ({ p: predictLogistic(correct, correctRow(r)), right: r.citesGold }));
  return {
    set,
    offTopic: { ...offTopic, threshold, refusedThreshold },
    answerable: { ...answerable, threshold: refuse },
    correct: { ...correct, high: highThreshold(candidates, TARGETS.highPrecision, TARGETS.highMinSupport) },
  };
}

/** The fitted models in the shape the widget reads (answerability.ts), unrounded. */
function asAnswerabilityModel(models: Models): AnswerabilityModel {
  return {
    version: 1,
    offTopic: { ...models.offTopic, features: offTopicFeatures(models.set) },
    answerable: { ...models.answerable, features: models.set.features },
    correct: { ...models.correct, features: models.set.correct },
  };
}

/** What the loop does with one row under `models`: the widget's own decision (assess), not a copy of it. */
function decide(r: FitRow, models: Models): { offTopic: boolean; refused: boolean; tier: 'high' | 'medium' | 'low' } {
  const features = Object.fromEntries(EVIDENCE_FEATURES.map((f, j) => [f, r.features[j]])) as EvidenceVector;
  const a = assess({ features }, asAnswerabilityModel(models));
  if (a.isOffTopic) return { offTopic: true, refused: true, tier: 'low' };
  if (!r.answered || a.refuse) return { offTopic: false, refused: true, tier: 'low' };
  return { offTopic: false, refused: false, tier: r.fullySupported && a.high ? 'high' : 'medium' };
}

interface SetFigures {
  questions: number;
  answerable: number;
  unanswerable: number;
  falseRefusals: number;
  unanswerableRefused: number;
  unanswerableHigh: number;
  flaggedOffTopic: number;
  high: number;
  highRight: number;
  medium: number;
  mediumRight: number;
  citesGold: number;
}

function figures(rows: readonly FitRow[], decisions: readonly ReturnType<typeof decide>[]): Record<string, SetFigures> {
  const out: Record<string, SetFigures> = {};
  rows.forEach((r, i) => {
    const d = decisions[i];
    const f = (out[r.set] ??= {
      questions: 0,
      answerable: 0,
      unanswerable: 0,
      falseRefusals: 0,
      unanswerableRefused: 0,
      unanswerableHigh: 0,
      flaggedOffTopic: 0,
      high: 0,
      highRight: 0,
      medium: 0,
      mediumRight: 0,
      citesGold: 0,
    });
    f.questions++;
    if (d.offTopic) f.flaggedOffTopic++;
    if (r.answerable) {
      f.answerable++;
      if (d.refused) f.falseRefusals++;
      else if (r.citesGold) f.citesGold++;
    } else {
      f.unanswerable++;
      if (d.refused) f.unanswerableRefused++;
      if (d.tier === 'high') f.unanswerableHigh++;
    }
    if (d.tier === 'high') {
      f.high++;
      if (r.citesGold) f.highRight++;
    } else if (d.tier === 'medium') {
      f.medium++;
      if (r.citesGold) f.mediumRight++;
    }
  });
  return out;
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)} %` : '—');

function printFigures(title: string, figs: Record<string, SetFigures>): void {
  console.log(`\n${title}`);
  console.log('set | questions | false refusals | unanswerable refused | unanswerable "high" | flagged off-topic | high: right/n | medium: right/n | answerable citing gold');
  for (const [set, f] of Object.entries(figs)) {
    console.log(
      `${set} | ${f.questions} | ${f.falseRefusals}/${f.answerable} (${pct(f.falseRefusals, f.answerable)}) | ${f.unanswerableRefused}/${f.unanswerable} (${pct(f.unanswerableRefused, f.unanswerable)}) | ${f.unanswerableHigh} | ${f.flaggedOffTopic} (${pct(f.flaggedOffTopic, f.questions)}) | ${f.highRight}/${f.high} (${pct(f.highRight, f.high)}) | ${f.mediumRight}/${f.medium} (${pct(f.mediumRight, f.medium)}) | ${f.citesGold}/${f.answerable} (${pct(f.citesGold, f.answerable)})`,
    );
  }
}

/** Builds the demo index when it is missing or was written by an older index format. */
async function ensureDemoIndex(dir: string): Promise<void> {
  const manifest = join(dir, 'manifest.json');
  if (existsSync(manifest) && (JSON.parse(await readFile(manifest, 'utf8')) as { formatVersion?: number }).formatVersion === INDEX_FORMAT_VERSION) return;
  await buildIndex({ inputs: [join(ROOT, 'demo/corpus')], outDir: dir, embed: false, embedder: 'none', allowRemote: false, dtype: 'q8', maxTokens: 350, overlap: 0.15 });
}

async function collect(values: Record<string, string | boolean | undefined>): Promise<FitRow[]> {
  const path = values.rows as string;
  if (values.reuse && existsSync(path)) {
    const stored = JSON.parse(await readFile(path, 'utf8')) as FitRow[];
    // Rows written before a feature was added are collected again.
    if (stored.every((r) => r.features.length === EVIDENCE_FEATURES.length)) return stored;
  }
  for (const dir of [values.harel, values.heq] as string[]) {
    if (!existsSync(join(dir, 'manifest.json'))) throw new Error(`${dir} is not an index: build it first (README, "Measured on the real corpus").`);
  }
  const hybrid = Boolean(values.hybrid);
  if (!hybrid) await ensureDemoIndex(values.demo as string);
  const [harel, heq] = await Promise.all([values.harel, values.heq].map((d) => readIndexFolder(d as string)));
  // One embedder (and one cache) for every index: each must have been built with the same question model.
  const sameEmbedder = (index: LoadedIndex) => JSON.stringify(index.manifest.embedder) === JSON.stringify(harel.manifest.embedder);
  if (hybrid && !sameEmbedder(heq)) throw new Error('--hybrid: the Harel and HeQ indexes name different embedders.');
  // The demo's index with the real E5 is what `npm run build` writes where models/ holds it
  // (demo/.generated/demo-index); without it (or with the tests' tiny embedder) a hybrid run
  // leaves the demo's sets out rather than search them BM25-only among hybrid rows.
  let demo = existsSync(join(values.demo as string, 'manifest.json')) ? await readIndexFolder(values.demo as string) : null;
  if (hybrid && demo && !sameEmbedder(demo)) demo = null;
  if (hybrid && !demo) console.log(`${values.demo}: no index with ${harel.manifest.embedder?.id}'s vectors; the demo's sets are left out.`);
  const embedders = hybrid ? [await cachedQueryEmbedder(harel, values['model-dir'] as string, values['vectors-cache'] as string)] : null;
  const harelQuery = embedders?.[0].embedQuery;
  const heqQuery = harelQuery;
  const offTopic = await loadOffTopicSet(join(ROOT, 'builder/eval/sets/off-topic.json'));
  const fresh = await loadOffTopicSet(join(ROOT, 'builder/eval/sets/off-topic-fresh.json'));
  const context = await loadContextQuestions(join(ROOT, 'builder/eval/sets/insurance-context.json'));
  const byId = (q: { id: string }) => `off-topic/${q.id}`;
  const onHarel = { index: harel, ...(harelQuery ? { embedQuery: harelQuery } : {}) };
  const onDemo = demo && { index: demo, ...(harelQuery ? { embedQuery: harelQuery } : {}) };
  const sets: (QuestionSet | null)[] = [
    { name: 'dev-v2', ...onHarel, questions: await loadQuestions(join(DATA, 'harel/questions/dev-v2.json')), offTopic: false },
    { name: 'dev-v3', ...onHarel, questions: await loadQuestions(join(DATA, 'harel/questions/dev-v3.json')), offTopic: false },
    { name: 'off-topic@harel', ...onHarel, questions: offTopic, offTopic: true, group: byId, context },
    onDemo && { name: 'demo', ...onDemo, questions: await loadQuestions(join(ROOT, 'demo/questions.json')), offTopic: false },
    onDemo && { name: 'off-topic@demo', ...onDemo, questions: offTopic, offTopic: true, group: byId, context },
    // Never fitted on: measured once, with the final models, to see whether the off-topic
    // decision transfers to questions written after the features and rules were.
    { name: `${FRESH}@harel`, ...onHarel, questions: fresh, offTopic: true, group: byId, context },
    onDemo && { name: `${FRESH}@demo`, ...onDemo, questions: fresh, offTopic: true, group: byId, context },
    { name: 'heq', index: heq, ...(heqQuery ? { embedQuery: heqQuery } : {}), questions: await loadQuestions(join(DATA, 'heq/heq_v1.1_val.json')), offTopic: false },
  ];
  const rows = await collectRows(
    sets.filter((x): x is QuestionSet => x !== null),
    (set, done, total) => process.stderr.write(`\r${set}: ${done}/${total}   `),
  );
  process.stderr.write('\n');
  for (const e of embedders ?? []) {
    await e.save();
    await e.dispose();
  }
  if (hybrid) {
    const bm25 = rows.filter((r) => r.searchMode !== 'hybrid').length;
    if (bm25) console.log(`${bm25} rows searched BM25-only in hybrid mode (the question's embedding failed)`);
  }
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(rows));
  return rows;
}

/** Where --write puts each kind of model set: BM25-only rows → the lexical models; --hybrid rows → the hybrid ones. */
const WEIGHTS_FILES = {
  lexical: { file: 'widget/loop/answerability-weights.ts', name: 'ANSWERABILITY_WEIGHTS' },
  hybrid: { file: 'widget/loop/answerability-weights-hybrid.ts', name: 'HYBRID_ANSWERABILITY_WEIGHTS' },
};

/** A feature list as source: LEXICAL_FEATURES by name, and any feature after them spelled out. */
function featuresSource(features: readonly EvidenceFeature[]): string {
  const lexical = LEXICAL_FEATURES.every((f, i) => features[i] === f);
  if (!lexical) return JSON.stringify(features);
  const rest = features.slice(LEXICAL_FEATURES.length);
  return rest.length ? `[...LEXICAL_FEATURES, ${rest.map((f) => JSON.stringify(f)).join(', ')}]` : 'LEXICAL_FEATURES';
}

function weightsSource(models: Models, summary: string, target: (typeof WEIGHTS_FILES)[keyof typeof WEIGHTS_FILES], embedder: string | null): string {
  const model = (m: FittedLogistic, features = '@FEATURES@') => ({ features, mean: m.mean.map(round), scale: m.scale.map(round), weights: m.weights.map(round), bias: round(m.bias) });
  const json = JSON.stringify(
    {
      version: 1,
      ...(embedder ? { embedder } : {}),
      // Thresholds rounded towards caution: off-topic and "high" up, refusal down.
      offTopic: {
        ...model(models.offTopic, '@OFF_TOPIC@'),
        threshold: Math.ceil(models.offTopic.threshold * 1e6) / 1e6,
        refusedThreshold: Math.ceil(models.offTopic.refusedThreshold * 1e6) / 1e6,
      },
      answerable: { ...model(models.answerable), threshold: Math.floor(models.answerable.threshold * 1e6) / 1e6 },
      correct: { ...model(models.correct, '@CORRECT@'), high: Math.ceil(models.correct.high * 1e6) / 1e6 },
    },
    null,
    2,
  )
    // One line per vector: the file stays readable beside its features.
    .replace(/\[\s+([-\d.e,\s]+?)\s+\]/g, (_, inner: string) => `[${inner.split(/,\s*/).join(', ')}]`)
    .replace(/"@OFF_TOPIC@"/g, featuresSource(offTopicFeatures(models.set)))
    .replace(/"@FEATURES@"/g, featuresSource(models.set.features))
    .replace(/"@CORRECT@"/g, featuresSource(models.set.correct));
  return `/**
 * Written by builder/eval/fit-answerability.ts${embedder ? ' --hybrid' : ''} — do not edit by hand; refit instead.
 * Features: widget/loop/evidence.ts (LEXICAL_FEATURES, in that order${embedder ? ', then the semantic features named' : ''}).
${summary
  .split('\n')
  .map((l) => ` * ${l}`.trimEnd())
  .join('\n')}
 */
import type { AnswerabilityModel } from './answerability-model.ts';
import { LEXICAL_FEATURES } from './evidence.ts';

export const ${target.name}: AnswerabilityModel = ${json};
`;
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Held-out figures of one feature set: each question decided by the models of the fold that did not see it. */
function crossValidate(rows: readonly FitRow[], folds: readonly number[], k: number, set: FeatureSet, name: string): ReturnType<typeof decide>[] {
  const decisions = new Array<ReturnType<typeof decide>>(rows.length);
  console.log(
    `\n=== ${name}: ${rows.length} rows; ${k} folds; features: ${set.features.join(', ')}${set.offTopic ? `; off-topic: ${set.offTopic.join(', ')}` : ''}; correctness: ${set.correct.join(', ')}`,
  );
  for (let f = 0; f < k; f++) {
    const models = fitModels(
      rows.filter((_, i) => folds[i] !== f),
      set,
    );
    const heldIdx = rows.map((_, i) => i).filter((i) => folds[i] === f);
    for (const i of heldIdx) decisions[i] = decide(rows[i], models);
    printFigures(
      `${name}, fold ${f + 1} held-out (thresholds: off-topic ${models.offTopic.threshold.toFixed(3)}, when refused ${models.offTopic.refusedThreshold.toFixed(3)}, refuse below ${models.answerable.threshold.toFixed(3)}, high from ${models.correct.high.toFixed(3)})`,
      figures(
        heldIdx.map((i) => rows[i]),
        heldIdx.map((i) => decisions[i]),
      ),
    );
  }
  printFigures(`${name}, all folds, held-out (each question decided by the models of the fold that did not see it)`, figures(rows, decisions));
  for (const s of ['off-topic@harel', 'off-topic@demo']) {
    const asked = rows.map((r, i) => ({ r, d: decisions[i] })).filter(({ r }) => r.set === s);
    if (!asked.length) continue;
    const same = asked.filter(({ r }) => r.sameAfterContext).length;
    const offAfter = asked.filter(({ r, d }) => r.sameAfterContext && d.offTopic).length;
    console.log(`${s} after an insurance question: searched as alone ${same}/${asked.length}; refused as off-topic ${offAfter}/${asked.length} (${pct(offAfter, asked.length)})`);
  }
  return decisions;
}

/** The final models (fitted on every row) in-sample, on the never-fitted fresh off-topic set, and their coefficients. */
function reportFinal(rows: readonly FitRow[], freshRows: readonly FitRow[], models: Models, name: string): void {
  printFigures(
    `${name}, fitted on everything (in-sample: for reference only)`,
    figures(
      rows,
      rows.map((r) => decide(r, models)),
    ),
  );
  if (freshRows.length) {
    printFigures(
      `${name}, ${FRESH}: never fitted on, decided by the final models`,
      figures(
        freshRows,
        freshRows.map((r) => decide(r, models)),
      ),
    );
    for (const set of new Set(freshRows.map((r) => r.set))) {
      const asked = freshRows.filter((r) => r.set === set);
      const offAfter = asked.filter((r) => r.sameAfterContext && decide(r, models).offTopic).length;
      console.log(
        `${set} after an insurance question: searched as alone ${asked.filter((r) => r.sameAfterContext).length}/${asked.length}; refused as off-topic ${offAfter}/${asked.length} (${pct(offAfter, asked.length)})`,
      );
    }
  }
  console.log(`\n${name}, coefficients (standardised features):`);
  const weight = (model: FittedLogistic, features: readonly EvidenceFeature[], feature: EvidenceFeature) => {
    const j = features.indexOf(feature);
    return j < 0 ? '     —' : model.weights[j].toFixed(2).padStart(6);
  };
  for (const feature of new Set([...models.set.features, ...offTopicFeatures(models.set), ...models.set.correct])) {
    console.log(
      `  ${feature.padEnd(22)} off-topic ${weight(models.offTopic, offTopicFeatures(models.set), feature)}  answerable ${weight(models.answerable, models.set.features, feature)}  correct ${weight(models.correct, models.set.correct, feature)}`,
    );
  }
}

/** One line per set and model set: the held-out figures the docs' table quotes. */
function printSideBySide(runs: readonly { name: string; figs: Record<string, SetFigures> }[]): void {
  console.log('\nheld-out, side by side');
  console.log('set | models | false refusals | unanswerable refused | flagged off-topic | "high": right/answers | answerable citing gold');
  for (const set of Object.keys(runs[0].figs)) {
    for (const { name, figs } of runs) {
      const f = figs[set];
      console.log(
        `${set} | ${name} | ${f.falseRefusals}/${f.answerable} | ${f.unanswerableRefused}/${f.unanswerable} | ${f.flaggedOffTopic}/${f.questions} (${pct(f.flaggedOffTopic, f.questions)}) | ${f.highRight}/${f.high} | ${f.citesGold}/${f.answerable} (${pct(f.citesGold, f.answerable)})`,
      );
    }
  }
}

/** The feature sets a --hybrid run compares (the shipped one always among them). */
function setNames(list: string | undefined): (keyof typeof FEATURE_SETS)[] {
  const names = list ? list.split(',').map((s) => s.trim()) : Object.keys(FEATURE_SETS);
  for (const name of names) if (!(name in FEATURE_SETS)) throw new Error(`--sets: no feature set "${name}" (${Object.keys(FEATURE_SETS).join(', ')}).`);
  return [...new Set([...names, HYBRID_SHIPPED])] as (keyof typeof FEATURE_SETS)[];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      harel: { type: 'string' },
      heq: { type: 'string' },
      demo: { type: 'string' },
      rows: { type: 'string' },
      folds: { type: 'string', default: '5' },
      // The folds' shuffle: other seeds show how much the held-out figures owe to one split.
      seed: { type: 'string', default: '12' },
      reuse: { type: 'boolean', default: false },
      write: { type: 'boolean', default: false },
      hybrid: { type: 'boolean', default: false },
      'skip-demo': { type: 'boolean', default: false },
      'model-dir': { type: 'string', default: 'models' },
      'vectors-cache': { type: 'string', default: '.tmp/fit-fusion-queries.json' },
      // --hybrid: the feature sets compared, comma-separated (default: every one of FEATURE_SETS).
      sets: { type: 'string' },
    },
  });
  const hybrid = values.hybrid;
  values.harel ??= hybrid ? '.tmp/harel-e5-q4f32' : '.tmp/harel';
  values.heq ??= hybrid ? '.tmp/heq-e5-q4f32' : '.tmp/heq';
  values.demo ??= hybrid ? 'demo/.generated/demo-index' : '.tmp/demo-bm25';
  values.rows ??= hybrid ? '.tmp/answerability-rows-hybrid.json' : '.tmp/answerability-rows.json';
  if (values.write && values['skip-demo']) throw new Error('--write fits on every set: drop --skip-demo.');
  if (!existsSync(DATA)) throw new Error(`${DATA} is absent: the fitting data sits beside the repository.`);
  // --skip-demo: the sets a --hybrid run has, for a like-for-like comparison with it.
  const collected = (await collect(values)).filter((r) => !values['skip-demo'] || !r.set.endsWith('demo'));
  const rows = collected.filter((r) => !isFresh(r));
  const freshRows = collected.filter(isFresh);
  const k = Number(values.folds);
  const folds = assignFolds(
    rows.map((r) => r.group),
    k,
    Number(values.seed),
  );
  // BM25-only rows: the lexical models, as shipped. Hybrid rows: the same lexical models (what a
  // device with the query model runs today) beside the two semantic sets, on the same folds.
  const runs = (hybrid ? (setNames(values.sets) as readonly (keyof typeof FEATURE_SETS)[]) : (['lexical'] as const)).map((key) => {
    const name = `${hybrid ? 'hybrid' : 'bm25'} search, ${key} models`;
    const decisions = crossValidate(rows, folds, k, FEATURE_SETS[key], name);
    const models = fitModels(rows, FEATURE_SETS[key]);
    reportFinal(rows, freshRows, models, name);
    return { key, name, models, decisions, figs: figures(rows, decisions) };
  });
  printSideBySide(runs);
  // What --write ships: the lexical models from BM25-only rows, or from hybrid rows the set that won
  // on held-out folds (docs/how-it-answers.md, "With E5's evidence").
  const { models, figs: held } = runs.find((r) => r.key === (hybrid ? HYBRID_SHIPPED : 'lexical'))!;
  if (values.write) {
    const summary = [
      // The rows file is what the fit read: its hash says whether a rerun would refit the same rows.
      ...(await provenance(commandLine('builder/eval/fit-answerability.ts', process.argv.slice(2)), [{ label: basename(values.rows), file: values.rows }])),
      `Fitted ${new Date().toISOString().slice(0, 10)} on ${rows.length} rows (${Object.entries(held)
        .map(([s, f]) => `${s} ${f.questions}`)
        .join(', ')}).`,
      `Held-out (${k} folds): ${Object.entries(held)
        .filter(([s]) => s === 'dev-v2' || (hybrid && s === 'heq') || s.startsWith('off-topic'))
        .map(([s, f]) =>
          f.answerable
            ? `${s}: false refusals ${pct(f.falseRefusals, f.answerable)}, unanswerable refused ${f.unanswerableRefused}/${f.unanswerable}, high right ${f.highRight}/${f.high}`
            : `${s}: flagged off-topic ${pct(f.flaggedOffTopic, f.questions)}`,
        )
        .join('; ')}.`,
      ...(hybrid ? [`Rows searched hybrid (${[values.harel, values.heq, ...(rows.some((r) => r.set === 'demo') ? [values.demo] : [])].join(', ')}).`] : []),
    ].join('\n');
    const target = WEIGHTS_FILES[hybrid ? 'hybrid' : 'lexical'];
    const embedder = hybrid ? (JSON.parse(await readFile(join(values.harel, 'manifest.json'), 'utf8')) as { embedder: { id: string } }).embedder.id : null;
    const out = join(ROOT, target.file);
    await writeFile(out, weightsSource(models, summary, target, embedder));
    console.log(`\nwrote ${out}`);
  }
}

await main();
