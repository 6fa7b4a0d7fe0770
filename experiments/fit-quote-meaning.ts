/**
 * Quotes by meaning: would E5's similarity between the question and the
 * candidate sentences pick a better first quote where the extractive answerer's lexical scores
 * (near-)tie? Measured, not shipped: docs/how-it-answers.md ("Quotes by meaning") says why.
 *
 *   npx tsx experiments/fit-quote-meaning.ts [--harel .tmp/harel-e5-q4f32] [--heq .tmp/heq-e5-q4f32]
 *       [--demo demo/.generated/demo-index] [--model-dir models] [--vectors-cache .tmp/fit-fusion-queries.json]
 *       [--rows .tmp/quote-meaning-rows.json] [--reuse] [--folds 5] [--seed 12] [--max-embedded 0.5]
 *       [--out experiments/quote-meaning-result.json]
 *
 * Every answerable question of dev-v2, dev-v3 (Harel index), HeQ validation (its own index) and
 * the demo (its own index, when `npm run build` has written it with the real E5) runs through the
 * real loop, searched hybrid as a device with the query model does (builder/eval/fit/collect.ts's collecting
 * model: nothing refused on evidence, so every question gets quotes). The engine's request is
 * kept, and the extractive answerer's own scoring (scoreSentences) with `nearTies` gives the
 * candidates within TOLERANCES' widest of the best score, at most CAPS' largest, near-copies left
 * out. Each is embedded as E5 embeds a passage ("passage: " + sentence, one at a time, with the
 * q4f32 model the widget runs; cached on disk with the questions' vectors), the question as the
 * search embedded it. `--reuse` reads the rows back (.tmp/quote-meaning-rows.json) and only
 * refits. A rule (tolerance, cap, margin) quotes first the tied sentence nearest the question when
 * it is nearer than the lexical first by more than the margin.
 *
 * Ground truth, per first quote: HeQ, the quote holds a gold answer span (and, beside it, is from
 * the question's own paragraph); dev-v2, dev-v3 and the demo, the quote is from a page that
 * establishes a fact (twins counted, as the evals count them). Folds split by question; each
 * fold's rule is the one with the most (better − worse) first quotes on the other folds, pooled
 * over the sets (ties: the rule that embeds least), among the rules that embed at most
 * --max-embedded sentences per question on each set (the latency an answer may spend on it), and
 * the held-out figures count each question under a rule that never saw it. */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { Answer } from '../widget/answer/types.ts';
import type { LoadedIndex } from '../widget/core/format/read-index.ts';
import type { AnswerEngine, GenerateRequest } from '../widget/engines/engine.ts';
import { DUPLICATE_SIMILARITY, ExtractiveEngine, jaccard, scoreSentences, type ScoredSentence } from '../widget/engines/extractive.ts';
import { runAnswerLoop } from '../widget/loop/machine.ts';
import { LocalSearchService } from '../widget/search/local-search-service.ts';
import { readIndexFolder } from '../builder/read-index-folder.ts';
import { citesGoldLenient } from '../builder/eval/browser/answer-metrics.ts';
import { COLLECTING_MODEL } from '../builder/eval/fit/collect.ts';
import { assignFolds } from '../builder/eval/fit/folds.ts';
import { cachedQueryEmbedder } from '../builder/eval/fit/query-vectors.ts';
import { loadQuestions, type EvalQuestion } from '../builder/eval/questions.ts';
import { aliasMap, twinLookup } from '../builder/eval/run-eval.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DATA = join(ROOT, '../shared/data');

/** Near-tie tolerances swept: a candidate within this fraction of the best score is tied with it. */
export const TOLERANCES = [0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5] as const;
/** Most candidates embedded per question (each costs ~50–100 ms on wasm in the browser). */
export const CAPS = [2, 3, 4] as const;
/** How much nearer the question (cosine) a tied sentence must be than the lexical first to replace it. */
export const MARGINS = [0, 0.01, 0.02, 0.04] as const;
const WIDEST = Math.max(...TOLERANCES);
/** Default latency budget of a rule: sentences embedded per question, on average, on each set (`affordable`). */
const MAX_EMBEDDED = 0.5;
const MOST = Math.max(...CAPS);

interface Tied {
  sentence: string;
  score: number;
  /** cosine(E5 query vector, E5 passage vector). */
  cos: number;
  /** The ground truth's verdict on this sentence as a first quote. */
  good: boolean;
  /** HeQ: from the question's own paragraph (the span test is `good`). */
  goodPage?: boolean;
}

interface QuestionRow {
  set: string;
  id: string;
  /** The lexical order's first quote first, then the other near-ties (score order). Empty: no quote. */
  tied: Tied[];
}

interface Rule {
  tolerance: number;
  cap: number;
  margin: number;
}

/** The first quote's index in `row.tied` under `rule` (0: the lexical first), and how many sentences it embedded. */
export function firstUnder(row: Pick<QuestionRow, 'tied'>, rule: Rule): { pick: number; embedded: number } {
  const best = row.tied[0];
  if (!best) return { pick: 0, embedded: 0 };
  const within = row.tied.slice(0, rule.cap).filter((t) => t.score >= best.score * (1 - rule.tolerance));
  if (within.length < 2) return { pick: 0, embedded: 0 };
  let pick = 0;
  for (let i = 1; i < within.length; i++) if (within[i].cos > within[pick].cos) pick = i;
  return { pick: within[pick].cos - best.cos > rule.margin ? pick : 0, embedded: within.length };
}

/**
 * The candidates whose score is within `tolerance` (a fraction) of the best one's, best first
 * (the first is the one the answerer quotes first), at most `cap`, near-copies of an earlier one
 * left out (another edition's clause says nothing new to a tie-break).
 */
export function nearTies(candidates: readonly ScoredSentence[], tolerance: number, cap: number): ScoredSentence[] {
  // Stable: among equal scores the earlier passage's sentence first, as the answerer takes it.
  const ranked = candidates.map((c, i) => ({ c, i })).sort((a, b) => b.c.score - a.c.score || a.i - b.i);
  const best = ranked[0]?.c.score ?? 0;
  const ties: ScoredSentence[] = [];
  for (const { c } of ranked) {
    if (ties.length >= cap || c.score < best * (1 - tolerance) || best <= 0) break;
    if (ties.some((t) => jaccard(t.terms, c.terms) >= DUPLICATE_SIMILARITY)) continue;
    ties.push(c);
  }
  return ties;
}

/** White space folded: the quote is one line, an answer span may not be. */
const fold = (s: string) => s.replace(/\s+/gu, ' ').trim();

async function collect(
  sets: readonly { name: string; index: LoadedIndex; questions: readonly EvalQuestion[]; span: boolean }[],
  embedQuery: (prefixed: string) => Promise<Float32Array>,
): Promise<QuestionRow[]> {
  const rows: QuestionRow[] = [];
  for (const set of sets) {
    const requests: GenerateRequest[] = [];
    const extractive = new ExtractiveEngine();
    // The loop's own engine, with each request it gets kept: the last is the answer shown.
    const engine: AnswerEngine = {
      mode: 'extractive',
      generate: (request) => {
        requests.push(request);
        return extractive.generate(request);
      },
    };
    const search = LocalSearchService.fromIndex(set.index, { embedQuery });
    const { queryPrefix, passagePrefix } = set.index.manifest.embedder!;
    const aliases = aliasMap(set.index.documents);
    const twins = twinLookup(set.index.documents, set.index.chunks);
    let done = 0;
    for (const q of set.questions) {
      requests.length = 0;
      await runAnswerLoop({ question: q.question, history: [] }, { search, engine }, { tuning: { answerability: COLLECTING_MODEL } });
      const request = requests.at(-1);
      const tied: Tied[] = [];
      if (request) {
        const candidates = scoreSentences(request.reading, request.passages, {});
        const ties = nearTies(candidates, WIDEST, MOST);
        const byN = new Map(request.passages.map((p) => [p.n, p]));
        const onGoldPage = (n: number) => {
          const p = byN.get(n)!;
          const citation = { n, chunkId: p.chunkId, file: p.file, page: p.page, url: null, title: p.title, sectionPath: [], clause: null, quote: '', alsoIn: [] };
          return citesGoldLenient({ citations: [citation] } satisfies Pick<Answer, 'citations'>, q.facts, aliases, twins);
        };
        const question = ties.length > 1 ? await embedQuery(queryPrefix + request.reading.searched.text) : null;
        for (const t of ties) {
          const cos = question ? dot(question, await embedQuery(passagePrefix + t.sentence)) : 0;
          const goodPage = onGoldPage(t.n);
          const good = set.span ? q.answers.some((a) => fold(a).length > 0 && t.sentence.includes(fold(a))) : goodPage;
          tied.push({ sentence: t.sentence, score: t.score, cos, good, ...(set.span ? { goodPage } : {}) });
        }
      }
      rows.push({ set: set.name, id: q.id, tied });
      if (++done % 50 === 0 || done === set.questions.length) process.stderr.write(`\r${set.name}: ${done}/${set.questions.length}   `);
    }
    process.stderr.write('\n');
  }
  return rows;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

interface Tally {
  questions: number;
  /** Questions with a near-tie under the rule (at least two candidates embedded). */
  tied: number;
  embedded: number;
  changed: number;
  better: number;
  worse: number;
  /** First quotes good, lexical order and under the rule. */
  before: number;
  after: number;
  /** HeQ: first quote from the question's own paragraph, before and after. */
  pageBefore?: number;
  pageAfter?: number;
}

function tally(rows: readonly QuestionRow[], ruleOf: (row: QuestionRow) => Rule): Tally {
  const t: Tally = { questions: rows.length, tied: 0, embedded: 0, changed: 0, better: 0, worse: 0, before: 0, after: 0 };
  for (const row of rows) {
    const { pick, embedded } = firstUnder(row, ruleOf(row));
    t.embedded += embedded;
    if (embedded) t.tied++;
    const before = row.tied[0]?.good ?? false;
    const after = row.tied[pick]?.good ?? false;
    t.before += Number(before);
    t.after += Number(after);
    if (pick) t.changed++;
    if (after && !before) t.better++;
    if (before && !after) t.worse++;
    if (row.tied[0]?.goodPage !== undefined) {
      t.pageBefore = (t.pageBefore ?? 0) + Number(row.tied[0].goodPage);
      t.pageAfter = (t.pageAfter ?? 0) + Number(row.tied[pick].goodPage);
    }
  }
  return t;
}

const RULES: Rule[] = TOLERANCES.flatMap((tolerance) => CAPS.flatMap((cap) => MARGINS.map((margin) => ({ tolerance, cap, margin }))));
const gain = (t: Tally) => t.better - t.worse;

/**
 * Whether a rule keeps to the latency budget on every set: at most `maxEmbedded` sentences
 * embedded per question on average. Each is a model run of 60–100 ms on WebAssembly before the
 * answer shows, so a rule that embeds three sentences for most insurance questions doubles the
 * answer's time for them (measured: `npm run bench:query-model`, docs/how-it-answers.md).
 */
function affordable(rows: readonly QuestionRow[], rule: Rule, maxEmbedded: number): boolean {
  const sets = new Map<string, QuestionRow[]>();
  for (const row of rows) sets.set(row.set, [...(sets.get(row.set) ?? []), row]);
  return [...sets.values()].every((set) => tally(set, () => rule).embedded <= maxEmbedded * set.length);
}

/** The affordable rule with the most (better − worse) on `rows`; ties to the one that embeds least. */
function bestRule(rows: readonly QuestionRow[], maxEmbedded: number): Rule {
  const allowed = RULES.filter((rule) => affordable(rows, rule, maxEmbedded));
  let best = allowed[0] ?? RULES[0];
  let bestTally = tally(rows, () => best);
  for (const rule of allowed.slice(1)) {
    const t = tally(rows, () => rule);
    if (gain(t) > gain(bestTally) || (gain(t) === gain(bestTally) && t.embedded < bestTally.embedded)) {
      best = rule;
      bestTally = t;
    }
  }
  return best;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      harel: { type: 'string', default: '.tmp/harel-e5-q4f32' },
      demo: { type: 'string', default: 'demo/.generated/demo-index' },
      heq: { type: 'string', default: '.tmp/heq-e5-q4f32' },
      'model-dir': { type: 'string', default: 'models' },
      'vectors-cache': { type: 'string', default: '.tmp/fit-fusion-queries.json' },
      rows: { type: 'string', default: '.tmp/quote-meaning-rows.json' },
      reuse: { type: 'boolean', default: false },
      folds: { type: 'string', default: '5' },
      seed: { type: 'string', default: '12' },
      out: { type: 'string', default: 'experiments/quote-meaning-result.json' },
      'max-embedded': { type: 'string', default: String(MAX_EMBEDDED) },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(
      'usage: npx tsx experiments/fit-quote-meaning.ts [--harel dir] [--heq dir] [--model-dir models] [--vectors-cache file] [--rows file] [--reuse] [--folds 5] [--seed 12] [--max-embedded 0.5] [--out file]',
    );
    return;
  }
  let rows: QuestionRow[];
  if (values.reuse && existsSync(values.rows)) {
    rows = JSON.parse(await readFile(values.rows, 'utf8')) as QuestionRow[];
  } else {
    const [harel, heq] = await Promise.all([values.harel, values.heq].map((d) => readIndexFolder(d)));
    if (JSON.stringify(harel.manifest.embedder) !== JSON.stringify(heq.manifest.embedder)) throw new Error('the Harel and HeQ indexes name different embedders.');
    // Questions and sentences through the model the widget embeds questions with, one at a time, cached.
    const vectors = await cachedQueryEmbedder(harel, values['model-dir'], values['vectors-cache']);
    const answerable = (qs: EvalQuestion[]) => qs.filter((q) => q.answerable);
    try {
      rows = await collect(
        [
          { name: 'dev-v2', index: harel, questions: answerable(await loadQuestions(join(DATA, 'harel/questions/dev-v2.json'))), span: false },
          { name: 'dev-v3', index: harel, questions: answerable(await loadQuestions(join(DATA, 'harel/questions/dev-v3.json'))), span: false },
          { name: 'heq', index: heq, questions: answerable(await loadQuestions(join(DATA, 'heq/heq_v1.1_val.json'))), span: true },
          // The demo's own questions over its own index (npm run build writes it with the real E5), when there.
          ...(existsSync(join(values.demo, 'manifest.json'))
            ? [{ name: 'demo', index: await readIndexFolder(values.demo), questions: answerable(await loadQuestions(join(ROOT, 'demo/questions.json'))), span: false }]
            : []),
        ],
        vectors.embedQuery,
      );
    } finally {
      await vectors.save();
      await vectors.dispose();
    }
    await writeFile(values.rows, JSON.stringify(rows));
  }

  const k = Number(values.folds);
  const folds = assignFolds(
    rows.map((r) => `${r.set}/${r.id}`),
    k,
    Number(values.seed),
  );
  const maxEmbedded = Number(values['max-embedded']);
  const ruleByFold = Array.from({ length: k }, (_, f) =>
    bestRule(
      rows.filter((_, i) => folds[i] !== f),
      maxEmbedded,
    ),
  );
  const foldOf = new Map(rows.map((r, i) => [r, folds[i]]));
  const heldOut = (subset: readonly QuestionRow[]) => tally(subset, (row) => ruleByFold[foldOf.get(row)!]);
  const sets = [...new Set(rows.map((r) => r.set))];
  const bySet = (name: string) => rows.filter((r) => r.set === name);
  const result = {
    measured: new Date().toISOString().slice(0, 10),
    folds: k,
    seed: Number(values.seed),
    rulesByFold: ruleByFold,
    maxEmbedded,
    final: bestRule(rows, maxEmbedded),
    heldOut: Object.fromEntries(sets.map((s) => [s, heldOut(bySet(s))])),
    heldOutAll: heldOut(rows),
    // In-sample, for the shape of the curve: every rule on all questions.
    sweep: RULES.map((rule) => ({
      rule,
      bySet: Object.fromEntries(sets.map((s) => [s, (({ changed, better, worse, embedded }) => ({ changed, better, worse, embedded }))(tally(bySet(s), () => rule))])),
    })),
  };
  console.log('rule per fold (tolerance, cap, margin):', ruleByFold.map((r) => `${r.tolerance}/${r.cap}/${r.margin}`).join('  '));
  for (const s of sets) {
    const t = result.heldOut[s];
    console.log(
      `${s.padEnd(7)} held-out: ${t.questions} questions, ${t.tied} tied (${t.embedded} sentences embedded), first quote changed ${t.changed}: better ${t.better}, worse ${t.worse}; first quote good ${t.before} → ${t.after}` +
        (t.pageBefore !== undefined ? `; from its paragraph ${t.pageBefore} → ${t.pageAfter}` : ''),
    );
  }
  const a = result.heldOutAll;
  console.log(`all     held-out: changed ${a.changed}, better ${a.better}, worse ${a.worse} (gain ${gain(a)})`);
  const f = result.final;
  console.log(`fitted on every question: tolerance ${f.tolerance}, cap ${f.cap}, margin ${f.margin}`);
  console.log('\nin-sample sweep (changed/better/worse per set), margin 0, cap 4:');
  for (const r of result.sweep.filter((r) => r.rule.margin === 0 && r.rule.cap === MOST)) {
    console.log(`  tolerance ${String(r.rule.tolerance).padEnd(5)} ${sets.map((s) => `${s} ${r.bySet[s].changed}/${r.bySet[s].better}/${r.bySet[s].worse}`).join('  ')}`);
  }
  await mkdir(dirname(values.out), { recursive: true });
  await writeFile(values.out, `${JSON.stringify(result, null, 1)}\n`);
  console.log(`\nwrote ${values.out}`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
