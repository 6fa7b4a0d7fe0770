/**
 * `npm run bench:query-model [-- --runs 3] [--site <dir>] [--index <dir>] [--json <file>]`: the
 * real E5 query model in Chromium, as a visitor of the demo meets it. Figures only, never asserted in tests.
 *
 * The demo app (`npm run build`'s, built into .tmp/bench-query-model/site unless --site names
 * one, with the demo index embedded with the E5 in models/) is served by the preview server.
 * Each run is a fresh browser context, service workers blocked (what is measured is the widget's
 * own caching: the index in IndexedDB, the model in its Cache Storage; --index puts another
 * index embedded with the same E5, such as the real corpus, in place of the demo's):
 * - first visit: from the page opening (navigation start) to `ready` (the index answers, by BM25)
 *   and to `searchReady` (hybrid: the model downloaded, started and proven by one embedding), and
 *   the model's bytes over the wire (what the server sent under /models/);
 * - every question asked through `el.ask`: the worker's own `timings.embed` (tokenizing, the
 *   ONNX run, pooling) and the whole answer — p50/p95 over all runs, the first question of each
 *   run apart (it pays for the JIT warming up);
 * - second visit (a new page in the same context): `ready` and hybrid ready from the device's
 *   cache, and the model's bytes over the wire (none expected);
 * - a question asked the moment the index is ready, on a first visit of its own (a fresh
 *   context): how long its answer takes while the model downloads and starts, and how it was
 *   searched (BM25: the model never comes before the first answer).
 * Timings depend on what else runs on the machine: the load average is recorded with them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { buildSite, publishIndex } from './build-site.ts';
import { DEMO_PATHS, hasE5 } from './prepare-demo.ts';
import { parseScriptArgs, usageError } from '../../tools/script-args.ts';
import { CROSS_ORIGIN_ISOLATION_HEADERS, startStaticServer } from '../../tools/static-server.ts';
import { CHROMIUM_ARGS, findChromium } from '../../builder/browser/chromium.ts';
import { loadQuestions } from '../../builder/eval/questions.ts';
import { median, percentile } from '../../builder/bench/browser-bench.ts';

interface Visit {
  /** Milliseconds from navigation start to `ready` / to `searchReady`. */
  readyMs: number;
  hybridMs: number;
  searchMode: string;
  device: string | null;
  /** onnxruntime's threads for questions, and whether the page was cross-origin isolated (the preview server sends COOP/COEP). */
  threads: number | null;
  isolated: boolean;
  embedderError: string | null;
  modelBytes: number;
  /** The widget's own account of the model's load, from its start (ms): file, tokenizer, session, first embedding. */
  loadSteps: { files: number; tokenizer: number; session: number; probe: number } | null;
}

interface Run {
  first: Visit;
  second: Visit;
  /** A question asked at `ready` on a first visit: ms to its answer, and its search mode. */
  askedAtReady: { answerMs: number; searchMode: string };
  /** `timings.embed` of each question, in order. */
  embedMs: number[];
  /** Each question's whole answer (el.ask, question to extractive answer, hybrid), in order. */
  answerMs: number[];
  /** Each hybrid answer's own step timings (answer.timings: route, embed, search, grade, generate, ground), in order. */
  steps: Record<string, number>[];
}

const USAGE = `usage: npm run bench:query-model [-- --runs 3] [--site <dir>] [--index <dir>] [--questions <file>] [--json <file>]
  The real E5 query model in Chromium, as a visitor of the demo meets it: index ready, hybrid
  ready (first visit and from the device's cache), the model's bytes over the wire, every demo
  question's embedding time. Needs the models: npx harel-builder models fetch.
  --runs <n>          fresh browser contexts to measure (default 3)
  --site <dir>        an app already built (default: npm run build's demo app, built here)
  --index <dir>       publish this index in the app instead of its own (one embedded with the same
                      E5, e.g. the real corpus: harel-builder build ../shared/data/harel/corpus …)
  --questions <file>  the questions to embed (default demo/questions.json)
  --json <file>       also write every figure there
  --no-isolation      serve without COOP/COEP (a host that does not send them: one thread); by default
                      the page is cross-origin isolated, as npm run preview and npm run demo serve it
  --help              this text`;

const { values } = parseScriptArgs(USAGE, {
  options: { runs: { type: 'string' }, site: { type: 'string' }, index: { type: 'string' }, json: { type: 'string' }, questions: { type: 'string' }, 'no-isolation': { type: 'boolean' } },
});
if (!values.site && !hasE5()) {
  process.stderr.write(`The real E5 query model is not in ${DEMO_PATHS.models}: run npx harel-builder models fetch first.\n`);
  process.exit(1);
}
const runs = Math.max(1, Number(values.runs ?? 3));
const questions = (await loadQuestions(values.questions ?? 'demo/questions.json')).map((q) => q.question);
const site = values.site ? resolve(values.site) : await buildSite({ outDir: resolve('.tmp/bench-query-model/site'), index: 'demo', fetch: false, quiet: true });
if (values.index) {
  // Another index embedded with the same E5 (the real Harel corpus): the app served as built, its index replaced.
  if (!existsSync(join(values.index, 'manifest.json'))) usageError(USAGE, `--index ${values.index} holds no manifest.json`);
  publishIndex(site, resolve(values.index));
}

let modelBytes = 0;
const preview = await startStaticServer({
  root: site,
  port: 0,
  host: 'localhost',
  headers: values['no-isolation'] ? {} : { ...CROSS_ORIGIN_ISOLATION_HEADERS },
  // The bytes sent, not the files' sizes: transformers.js first asks each file for one byte.
  onServe: (path, _file, bytes) => {
    if (path.startsWith('/models/')) modelBytes += bytes;
  },
});

async function askAtReady(context: BrowserContext, question: string): Promise<Run['askedAtReady']> {
  const page = await context.newPage();
  await page.goto(`${preview.origin}/?lang=en`);
  const result = await page.evaluate(async (q) => {
    await customElements.whenDefined('harel-chat');
    const el = document.querySelector('harel-chat')!;
    await el.ready;
    const t0 = performance.now();
    const answer = await el.ask(q);
    return { answerMs: performance.now() - t0, searchMode: answer.searchMode };
  }, question);
  await page.close();
  return result;
}

async function visit(context: BrowserContext): Promise<Visit> {
  const before = modelBytes;
  const page = await context.newPage();
  await page.goto(`${preview.origin}/?lang=en`);
  const figures = await page.evaluate(async () => {
    await customElements.whenDefined('harel-chat');
    const el = document.querySelector('harel-chat')!;
    await el.ready;
    const readyMs = performance.now();
    const info = await el.searchReady;
    return {
      readyMs,
      hybridMs: performance.now(),
      searchMode: info.searchMode,
      device: info.embedderDevice ?? null,
      threads: info.embedderThreads ?? null,
      isolated: crossOriginIsolated,
      embedderError: info.embedderError,
      loadSteps: info.embedderTimings ?? null,
    };
  });
  const result = { ...figures, modelBytes: modelBytes - before };
  await page.close();
  return result;
}

const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
const results: Run[] = [];
const load: number[][] = [];
try {
  for (let r = 0; r < runs; r++) {
    load.push(loadavg());
    const context = await browser.newContext({ serviceWorkers: 'block' });
    const first = await visit(context);
    if (first.searchMode !== 'hybrid') throw new Error(`search is ${first.searchMode}, not hybrid: ${first.embedderError}`);
    const page = await context.newPage();
    await page.goto(`${preview.origin}/?lang=en`);
    const { embedMs, answerMs, steps } = await page.evaluate(async (qs) => {
      const el = document.querySelector('harel-chat')!;
      await customElements.whenDefined('harel-chat');
      await el.searchReady;
      const embeds: number[] = [];
      const answers: number[] = [];
      const steps: Record<string, number>[] = [];
      for (const q of qs) {
        const t0 = performance.now();
        const answer = await el.ask(q);
        const hybrid = answer.searchMode === 'hybrid';
        answers.push(hybrid ? performance.now() - t0 : Number.NaN);
        embeds.push(hybrid ? answer.timings.embed : Number.NaN);
        steps.push(hybrid ? { ...answer.timings } : {});
      }
      return { embedMs: embeds, answerMs: answers, steps };
    }, questions);
    await page.close();
    const second = await visit(context);
    await context.close();
    const fresh = await browser.newContext({ serviceWorkers: 'block' });
    const askedAtReady = await askAtReady(fresh, questions[0]);
    await fresh.close();
    results.push({ first, second, embedMs, answerMs, steps, askedAtReady });
    process.stderr.write(`run ${r + 1}/${runs}: hybrid ${first.hybridMs.toFixed(0)} ms cold, ${second.hybridMs.toFixed(0)} ms from cache; embed median ${median(embedMs.slice(1)).toFixed(1)} ms\n`);
  }
} finally {
  await browser.close();
  await preview.close();
}

const all = results.flatMap((r) => r.embedMs.slice(1)).filter(Number.isFinite);
const firsts = results.map((r) => r.embedMs[0]).filter(Number.isFinite);
const answers = results.flatMap((r) => r.answerMs.slice(1)).filter(Number.isFinite);
const med = (pick: (r: Run) => number) => median(results.map(pick));
const report = {
  site,
  runs,
  questions: questions.length,
  device: results[0]?.first.device ?? null,
  threads: results[0]?.first.threads ?? null,
  isolated: results[0]?.first.isolated ?? false,
  cpus: cpus().length,
  loadavg: load,
  coldReadyMs: med((r) => r.first.readyMs),
  coldHybridMs: med((r) => r.first.hybridMs),
  warmReadyMs: med((r) => r.second.readyMs),
  warmHybridMs: med((r) => r.second.hybridMs),
  modelBytesCold: med((r) => r.first.modelBytes),
  modelBytesWarm: med((r) => r.second.modelBytes),
  answerAtReadyMs: med((r) => r.askedAtReady.answerMs),
  warmLoadSteps: results[0]?.second.loadSteps ? Object.fromEntries((['files', 'tokenizer', 'session', 'probe'] as const).map((k) => [k, med((r) => r.second.loadSteps?.[k] ?? Number.NaN)])) : null,
  answerAtReadyModes: results.map((r) => r.askedAtReady.searchMode),
  embed: { p50: percentile(all, 50), p95: percentile(all, 95), max: Math.max(...all), n: all.length, firstQuestionMedian: median(firsts) },
  answer: { p50: percentile(answers, 50), p95: percentile(answers, 95), n: answers.length },
  /** p50/p95 of each step of the hybrid answers (the first question of a run apart, as above); ground holds the quote's similarity (semQuote). */
  steps: Object.fromEntries(
    ['route', 'embed', 'search', 'grade', 'generate', 'ground', 'total'].map((step) => {
      const values = results.flatMap((r) => r.steps.slice(1).map((t) => t[step])).filter((v): v is number => Number.isFinite(v));
      return [step, { p50: percentile(values, 50), p95: percentile(values, 95) }];
    }),
  ),
  results,
};

const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
console.log(
  `query model in Chromium (${report.device}, ${report.threads} thread(s), page ${report.isolated ? '' : 'not '}cross-origin isolated), ${runs} run(s), medians; ${questions.length} demo questions per run; load average ${load.map((l) => l[0].toFixed(1)).join(', ')} on ${report.cpus} CPUs`,
);
console.log(`  first visit: index ready (BM25) ${report.coldReadyMs.toFixed(0)} ms, hybrid ready ${report.coldHybridMs.toFixed(0)} ms; model over the wire ${mb(report.modelBytesCold)}`);
console.log(
  `  from the device's cache: index ready ${report.warmReadyMs.toFixed(0)} ms, hybrid ready ${report.warmHybridMs.toFixed(0)} ms after the page opens; model over the wire ${mb(report.modelBytesWarm)}`,
);
if (report.warmLoadSteps) {
  const steps = report.warmLoadSteps;
  console.log(
    `    where the model's load went, from the device's cache (ms from its start, steps overlap): file in hand ${steps.files.toFixed(0)}, tokenizer built ${steps.tokenizer.toFixed(0)}, session created ${steps.session.toFixed(0)}, first embedding ${steps.probe.toFixed(0)}`,
  );
}
console.log(`  a question asked the moment the index is ready (model still loading): answered in ${report.answerAtReadyMs.toFixed(0)} ms, by ${[...new Set(report.answerAtReadyModes)].join('/')}`);
console.log(
  `  query embedding: p50 ${report.embed.p50.toFixed(1)} ms, p95 ${report.embed.p95.toFixed(1)} ms, max ${report.embed.max.toFixed(1)} ms (n ${report.embed.n}); first question of a visit ${report.embed.firstQuestionMedian.toFixed(1)} ms`,
);
console.log(`  a question to its extractive answer, hybrid (el.ask): p50 ${report.answer.p50.toFixed(0)} ms, p95 ${report.answer.p95.toFixed(0)} ms (n ${report.answer.n})`);
console.log(
  `    its steps, p50 / p95 ms (ground includes the quote's embedding, semQuote): ${Object.entries(report.steps)
    .map(([step, t]) => `${step} ${t.p50.toFixed(1)} / ${t.p95.toFixed(1)}`)
    .join(', ')}`,
);
if (values.json) {
  await mkdir(dirname(resolve(values.json)), { recursive: true });
  await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`);
}
