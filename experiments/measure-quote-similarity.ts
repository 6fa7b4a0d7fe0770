/**
 * Whether the sentence an answer quotes first lies near the question, as evidence that the
 * documents answer it, on its own (AUC). Measured before building it, because it costs every
 * answer one more embedding; the loop now measures it as semQuote (evidence.ts) and the hybrid
 * correctness model reads it (builder/eval/fit-answerability.ts, quote-correct):
 *
 *   npx tsx experiments/measure-quote-similarity.ts [--harel .tmp/harel-e5-q4f32] [--heq .tmp/heq-e5-q4f32]
 *       [--demo demo/.generated/demo-index] [--model-dir models] [--vectors-cache .tmp/fit-fusion-queries.json]
 *
 * Every question of dev-v2, dev-v3, the demo and HeQ validation (read from ../shared/data, never
 * copied) runs through the real loop, searched hybrid, under a model that never refuses; the first
 * sentence the extractive answer quotes is embedded as E5 embeds a passage ("passage: ", the
 * question model), and its cosine to the question's vector is compared, as the AUC of answerable
 * against unanswerable questions, with the evidence the loop already has (semTop, semPassage).
 * docs/how-it-answers.md has the result.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseScriptArgs } from '../tools/script-args.ts';
import { ExtractiveEngine } from '../widget/engines/extractive.ts';
import { runAnswerLoop } from '../widget/loop/machine.ts';
import { LocalSearchService } from '../widget/search/local-search-service.ts';
import { readIndexFolder } from '../builder/read-index-folder.ts';
import { COLLECTING_MODEL } from '../builder/eval/fit/collect.ts';
import { cachedQueryEmbedder } from '../builder/eval/fit/query-vectors.ts';
import { loadQuestions } from '../builder/eval/questions.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const DATA = join(ROOT, '../shared/data');
const USAGE = `usage: npx tsx experiments/measure-quote-similarity.ts [--harel <dir>] [--heq <dir>] [--demo <dir>] [--model-dir models] [--vectors-cache <file>]
  The first quoted sentence's cosine to the question, against answerable/unanswerable, per set (AUC).`;

const { values } = parseScriptArgs(USAGE, {
  options: {
    harel: { type: 'string', default: '.tmp/harel-e5-q4f32' },
    heq: { type: 'string', default: '.tmp/heq-e5-q4f32' },
    demo: { type: 'string', default: 'demo/.generated/demo-index' },
    'model-dir': { type: 'string', default: 'models' },
    'vectors-cache': { type: 'string', default: '.tmp/fit-fusion-queries.json' },
  },
});
if (!existsSync(DATA)) throw new Error(`${DATA} is absent: the questions sit beside the repository.`);

interface Measured {
  answerable: boolean;
  semQuote: number;
  semTop: number;
  semPassage: number;
}

/** P(an answerable question scores above an unanswerable one), ties counting half. */
function auc(answerable: readonly number[], unanswerable: readonly number[]): number {
  let above = 0;
  for (const a of answerable) for (const u of unanswerable) above += a > u ? 1 : a === u ? 0.5 : 0;
  return above / (answerable.length * unanswerable.length);
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, v, i) => sum + v * b[i], 0);

const [harel, heq, demo] = await Promise.all([values.harel, values.heq, values.demo].map((dir) => readIndexFolder(dir)));
const embedder = await cachedQueryEmbedder(harel, values['model-dir'], values['vectors-cache']);
const queryPrefix = harel.manifest.embedder?.queryPrefix ?? 'query: ';
const passagePrefix = harel.manifest.embedder?.passagePrefix ?? 'passage: ';
const sets = [
  { name: 'dev-v2', index: harel, file: join(DATA, 'harel/questions/dev-v2.json') },
  { name: 'dev-v3', index: harel, file: join(DATA, 'harel/questions/dev-v3.json') },
  { name: 'demo', index: demo, file: join(ROOT, 'demo/questions.json') },
  { name: 'heq', index: heq, file: join(DATA, 'heq/heq_v1.1_val.json') },
];
const engine = new ExtractiveEngine();
try {
  for (const set of sets) {
    const search = LocalSearchService.fromIndex(set.index, { embedQuery: embedder.embedQuery });
    const measured: Measured[] = [];
    for (const q of await loadQuestions(set.file)) {
      const answer = await runAnswerLoop({ question: q.question, history: [] }, { search, engine }, { tuning: { answerability: COLLECTING_MODEL } });
      // The sentence behind the answer's first marker, verbatim (widget/loop/citations.ts).
      const quote = answer.citations[0]?.quote;
      const question = await embedder.embedQuery(queryPrefix + q.question);
      const features = answer.evidence?.features;
      measured.push({
        answerable: q.answerable,
        semQuote: quote ? dot(question, await embedder.embedQuery(passagePrefix + quote)) : 0,
        semTop: features?.semTop ?? 0,
        semPassage: features?.semPassage ?? 0,
      });
    }
    await embedder.save();
    const yes = measured.filter((m) => m.answerable);
    const no = measured.filter((m) => !m.answerable);
    const cell = (f: keyof Omit<Measured, 'answerable'>) =>
      no.length && yes.length
        ? auc(
            yes.map((m) => m[f]),
            no.map((m) => m[f]),
          ).toFixed(3)
        : '—';
    console.log(`${set.name.padEnd(7)} ${yes.length} answerable, ${no.length} not | AUC semQuote ${cell('semQuote')}  semTop ${cell('semTop')}  semPassage ${cell('semPassage')}`);
  }
} finally {
  await embedder.save();
  await embedder.dispose();
}
