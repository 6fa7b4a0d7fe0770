/**
 * `npm run eval:browser -- --index <dir> --questions <file> [--limit n] [--out <dir>]`: the
 * widget's answers on real questions, measured in Chromium. Writes report.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { positiveInt } from '../../cli/args.ts';
import { loadQuestions } from '../questions.ts';
import { aliasMap } from '../run-eval.ts';
import { readIndexFolder } from '../../read-index-folder.ts';
import { scoreAnswers } from './answer-metrics.ts';
import { runBrowserEval } from './run-browser-eval.ts';

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: {
    index: { type: 'string' },
    questions: { type: 'string', multiple: true },
    limit: { type: 'string' },
    out: { type: 'string' },
    port: { type: 'string' },
  },
});
if (!values.index || !values.questions?.length) {
  process.stderr.write('usage: npm run eval:browser -- --index <dir> --questions <file> [--limit n] [--out <dir>]\n');
  process.exit(2);
}
let questions = (await Promise.all(values.questions.map((f) => loadQuestions(f)))).flat();
if (values.limit) questions = questions.slice(0, positiveInt(values.limit, '--limit', questions.length));
const index = await readIndexFolder(resolve(values.index));
const run = await runBrowserEval({
  indexDir: values.index,
  questions,
  port: values.port ? Number(values.port) : undefined,
  onProgress: (done, total, r) =>
    process.stderr.write(`\r${done}/${total} ${r.error ? `error ${r.error}` : r.answer!.refused ? 'refused' : 'answered'}        `),
});
process.stderr.write('\n');
const metrics = scoreAnswers(run.records, questions, aliasMap(index.documents));
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
process.stdout.write(
  [
    `index ${run.index.buildId}: ${run.index.chunkCount} chunks, search ${run.index.searchMode}; load cold ${run.indexLoad.cold} ms, warm ${run.indexLoad.warm} ms`,
    `questions ${metrics.questions} (answerable ${metrics.answerable}, unanswerable ${metrics.unanswerable}, errors ${metrics.errors})`,
    `answer cites a gold page: ${pct(metrics.citationHitRate)} of answered, ${pct(metrics.citationHitRateAll)} of answerable (closest clauses included)`,
    `refusals: ${pct(metrics.falseRefusalRate)} of answerable, ${pct(metrics.unanswerableRefusalRate)} of unanswerable`,
    `timings.total p50 ${metrics.latency.p50.toFixed(0)} ms, p95 ${metrics.latency.p95.toFixed(0)} ms`,
  ].join('\n') + '\n',
);
const out = resolve(values.out ?? '.tmp/eval-browser');
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'report.json'), JSON.stringify({ metrics, indexLoad: run.indexLoad, index: run.index, records: run.records }, null, 1));
process.stderr.write(`report: ${join(out, 'report.json')}\n`);
