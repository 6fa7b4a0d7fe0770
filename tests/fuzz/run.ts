/**
 * `npm run fuzz`: the seeded fuzzers (docs/reliability.md), full size. Reproducible: the same seed gives the
 * same cases; a failure prints its seed and the command that replays it.
 *
 *   npm run fuzz                               every target, seed 27
 *   npm run fuzz -- --target index --seed 5    one target from seed 5
 *   npm run fuzz -- --target index --seed 1234 --runs 1   replays one index case
 *   npm run fuzz -- --target models --seed 38 --runs 1    replays one model-file case
 *   npm run fuzz -- --target index-browser     50 index mutants published over a stored good build, in Chromium
 *   npm run fuzz -- --target index-browser --seed 30 --runs 1   replays one of them
 *   npm run fuzz -- --target documents --seed 402 --runs 1 --file-timeout 5   one case, a 5 s per-file limit
 *   npm run fuzz -- --json                     the report as JSON (docs/reliability.md's figures)
 */
import { parseArgs } from 'node:util';
import { fuzzIndexFiles } from './index-files.ts';
import { fuzzQuestions } from './questions.ts';
import { fuzzDocuments } from './documents.ts';
import { fuzzModelFiles } from './model-files.ts';
import { runIndexBrowserFuzz } from './index-browser-run.ts';

const { values } = parseArgs({
  options: {
    target: { type: 'string', default: 'all' },
    seed: { type: 'string', default: '27' },
    runs: { type: 'string' },
    json: { type: 'boolean' },
    verbose: { type: 'boolean' },
    /** documents: the per-file parse limit in seconds (default the builder's 30), as `build --file-timeout`. */
    'file-timeout': { type: 'string' },
  },
});
const seed = Number(values.seed);
if (!Number.isSafeInteger(seed)) throw new Error(`--seed ${values.seed} is not an integer`);
const runs = (fallback: number) => (values.runs ? Number(values.runs) : fallback);
const targets = values.target === 'all' ? ['index', 'questions', 'documents', 'models', 'index-browser'] : String(values.target).split(',');
const reports: Record<string, unknown> = {};
let failed = 0;
const log = (line: string) => process.stderr.write(`${line}\n`);

for (const target of targets) {
  if (target === 'index') {
    const r = await fuzzIndexFiles({ seed, runs: runs(1000), onCase: (i) => i % 100 === 0 && log(`index: case ${i}…`) });
    reports.index = { ...r, failures: r.failures.length };
    log(
      `index: ${r.runs} mutants from seed ${seed}, each read twice (the widget's reader + search, and inspect): ${r.readOk} reads correct, refused ${JSON.stringify(r.refused)}, slowest ${r.maxMs.toFixed(0)} ms, ${r.failures.length} failures (${(r.ms / 1000).toFixed(1)} s)`,
    );
    for (const f of r.failures) log(`  FAIL seed ${f.seed}: ${JSON.stringify(f.mutation)}\n    ${f.problem}\n    replay: npm run fuzz -- --target index --seed ${f.seed} --runs 1`);
    failed += r.failures.length;
  } else if (target === 'questions') {
    const r = await fuzzQuestions({ seed, runs: runs(1000) });
    reports.questions = { ...r, failures: r.failures.length };
    log(
      `questions: ${r.runs} answers (each question alone and as a follow-up) from seed ${seed}: ${r.answered} answered, ${r.refused} refused, p50 ${r.p50Ms.toFixed(0)} ms, p95 ${r.p95Ms.toFixed(0)} ms, max ${r.maxMs.toFixed(0)} ms, ${r.failures.length} failures (${(r.ms / 1000).toFixed(1)} s)`,
    );
    for (const f of r.failures)
      log(
        `  FAIL seed ${f.seed}, question ${f.index} (${f.question.length} chars): ${JSON.stringify(f.question.slice(0, 120))}\n    ${f.problem}\n    replay: npm run fuzz -- --target questions --seed ${f.seed}`,
      );
    failed += r.failures.length;
  } else if (target === 'documents') {
    const fileTimeoutMs = values['file-timeout'] ? Number(values['file-timeout']) * 1000 : undefined;
    const r = await fuzzDocuments({ seed, runs: runs(500), fileTimeoutMs, onCase: (i) => i % 100 === 0 && log(`documents: case ${i}…`) });
    reports.documents = { ...r, failures: r.failures.length };
    if (r.missing) log(`documents: ${r.missing}`);
    log(`documents: seeds: the demo's ${r.seeds.demo} files and ${r.seeds.real.length} real PDFs${r.seeds.real.length ? ` (${r.seeds.real.map((n) => n.replace(/^real:/, '')).join(', ')})` : ''}`);
    log(
      `documents: ${r.runs} mutated files from seed ${seed}: ${r.indexed} indexed, ${r.skipped} skipped with a reason ${JSON.stringify(r.reasons)}; of them ${r.realCases.runs} mutants of real PDFs (${r.realCases.indexed} indexed, ${r.realCases.skipped} skipped); slowest ${r.maxMs.toFixed(0)} ms, ${r.failures.length} failures (${(r.ms / 1000).toFixed(1)} s)`,
    );
    if (r.slowest) log(`documents: slowest case seed ${r.slowest.seed} (${r.slowest.outcome}, ${r.slowest.ms.toFixed(0)} ms): ${r.slowest.what}`);
    for (const f of r.failures)
      log(
        `  FAIL seed ${f.seed}: ${f.what}\n    ${f.problem}\n    replay: npm run fuzz -- --target documents --seed ${f.seed} --runs 1${values['file-timeout'] ? ` --file-timeout ${values['file-timeout']}` : ''}`,
      );
    failed += r.failures.length;
  } else if (target === 'models') {
    const r = await fuzzModelFiles({
      seed,
      runs: runs(1000),
      onCase: (i) => i % 100 === 0 && log(`models: case ${i}…`),
      onOutcome: values.verbose ? (s, m, o) => log(`  ${s} ${JSON.stringify(m)} → ${JSON.stringify(o)}`) : undefined,
    });
    reports.models = { ...r, failures: r.failures.length };
    for (const line of r.missing) log(`models: SKIPPED ${line}`);
    log(
      `models: ${r.runs} mutated model files from seed ${seed} (${JSON.stringify(r.byTarget)}): ${r.loaded} loaded and embedded/read, refused ${JSON.stringify(r.refused)}, skipped ${JSON.stringify(r.skipped)}, slowest ${r.maxMs.toFixed(0)} ms, ${r.failures.length} failures (${(r.ms / 1000).toFixed(1)} s)`,
    );
    for (const f of r.failures) log(`  FAIL seed ${f.seed}: ${JSON.stringify(f.mutation)}\n    ${f.problem}\n    replay: npm run fuzz -- --target models --seed ${f.seed} --runs 1`);
    failed += r.failures.length;
  } else if (target === 'index-browser') {
    const r = await runIndexBrowserFuzz({
      seed,
      runs: runs(50),
      log,
      onCase: (i) => i % 10 === 0 && log(`index-browser: case ${i}…`),
      onOutcome: values.verbose ? (s, m, o) => log(`  ${s} ${JSON.stringify(m)} → ${o}`) : undefined,
    });
    reports['index-browser'] = { ...r, failures: r.failures.length };
    log(
      `index-browser: ${r.runs} mutants from seed ${seed} published over the stored good build ${r.goodBuildId}, each after a reload in Chromium: refused ${JSON.stringify(r.refused)} with the good build answering with citations (${r.goodAnswers}), ${r.readOk} read as a new build, slowest reload ${r.maxLoadMs.toFixed(0)} ms, slowest answer ${r.maxAnswerMs.toFixed(0)} ms, ${r.failures.length} failures (${(r.ms / 1000).toFixed(1)} s)`,
    );
    for (const f of r.failures) log(`  FAIL seed ${f.seed}: ${JSON.stringify(f.mutation)}\n    ${f.problem}\n    replay: npm run fuzz -- --target index-browser --seed ${f.seed} --runs 1`);
    failed += r.failures.length;
  } else {
    throw new Error(`unknown --target ${target} (index, questions, documents, models, index-browser)`);
  }
}
if (values.json) process.stdout.write(`${JSON.stringify(reports, null, 2)}\n`);
process.exitCode = failed ? 1 : 0;
