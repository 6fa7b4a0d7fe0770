/**
 * `npm run bench:device-document -- --pdf <file> [--question <q>]… [--runs 1] [--json <file>]`:
 * a customer's own PDF added to the demo in Chromium with the real E5 (issue 36, item 5). Figures
 * only, never asserted in tests; they depend on the machine's load, recorded with them.
 *
 * The demo app (`npm run build`'s, into .tmp/bench-device-document/site) is served by the preview
 * server; each run is a fresh browser context, its search hybrid before the document is added:
 * - added: from `el.addDocument(file)` to its resolving, i.e. parsed in the document worker,
 *   chunked, stored and searchable by BM25 (the bar: within 3 s for 40 pages);
 * - first answer: a question about the document asked right then, its time and whether it cites it;
 * - hybrid: from the same call to the document's vectors all embedded (the bar: within 90 s);
 * - the site's search meanwhile: the demo's questions asked one after another while the document
 *   embeds, each answer's time (p50/p95), against the same questions before it was added;
 * - memory: the page's JS heap and the resident memory of all of Chromium's processes (the
 *   workers' included), before the document and once it is embedded.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { basename, dirname, resolve } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { CHROMIUM_ARGS, findChromium } from '../../builder/browser/chromium.ts';
import { median, percentile } from '../../builder/bench/browser-bench.ts';
import { loadQuestions } from '../../builder/eval/questions.ts';
import { parseScriptArgs, usageError } from '../../tools/script-args.ts';
import { startStaticServer } from '../../tools/static-server.ts';
import { buildSite } from './build-site.ts';
import { DEMO_PATHS, hasE5 } from './prepare-demo.ts';

const USAGE = `usage: npm run bench:device-document -- --pdf <file> [--question <q>]… [--runs <n>] [--site <dir>] [--json <file>]
  A customer's PDF added to the demo in Chromium with the real E5: time to answer by BM25, to
  hybrid, the site's answers meanwhile, memory. Needs the models: npx harel-builder models fetch.
  --pdf <file>        the PDF to add (e.g. a Harel policy from ../shared/data/harel-feb-raw)
  --question <q>      a question about it, asked the moment it is added (repeatable; default: one generic)
  --runs <n>          fresh browser contexts (default 1)
  --site <dir>        an app already built (default: npm run build's demo app, built here)
  --json <file>       also write every figure there
  --help              this text`;

const { values } = parseScriptArgs(USAGE, {
  options: { pdf: { type: 'string' }, question: { type: 'string', multiple: true }, runs: { type: 'string' }, site: { type: 'string' }, json: { type: 'string' } },
});
if (!values.pdf) usageError(USAGE, '--pdf is required');
const pdfPath = resolve(values.pdf);
if (!existsSync(pdfPath)) usageError(USAGE, `${pdfPath}: no such file`);
if (!values.site && !hasE5()) {
  process.stderr.write(`The real E5 is not in ${DEMO_PATHS.models}: run npx harel-builder models fetch first.\n`);
  process.exit(1);
}
const runs = Math.max(1, Number(values.runs ?? 1));
const ownQuestions = values.question?.length ? values.question : ['What does my policy say about the deductible?'];
const siteQuestions = (await loadQuestions('demo/questions.json')).map((q) => q.question);
const pdf = readFileSync(pdfPath);
const site = values.site ? resolve(values.site) : await buildSite({ outDir: resolve('.tmp/bench-device-document/site'), index: 'demo', fetch: false, quiet: true });
const preview = await startStaticServer({ root: site, port: 0, host: 'localhost' });

/** Resident memory (MB) of every Chromium process running now (the bench's browser is the only one it starts). */
function chromiumRssMb(): number {
  try {
    const out = execFileSync('ps', ['-C', 'chromium', '-o', 'rss='], { encoding: 'utf8' });
    return (
      out
        .split(/\s+/)
        .filter(Boolean)
        .map(Number)
        .reduce((a, b) => a + b, 0) / 1024
    );
  } catch {
    return Number.NaN;
  }
}

/** JS heap in use (MB) of the page, through the DevTools protocol (workers' heaps count in the processes' resident memory). */
async function heapMb(page: Page): Promise<number> {
  const session = await page.context().newCDPSession(page);
  try {
    const { usedSize } = (await session.send('Runtime.getHeapUsage')) as { usedSize: number };
    return usedSize / 2 ** 20;
  } finally {
    await session.detach().catch(() => undefined);
  }
}

async function askAll(page: Page, questions: string[]): Promise<number[]> {
  return page.evaluate(async (qs) => {
    const el = document.querySelector('harel-chat')!;
    const times: number[] = [];
    for (const q of qs) {
      const t0 = performance.now();
      await el.ask(q);
      times.push(performance.now() - t0);
    }
    return times;
  }, questions);
}

const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });
const results = [];
try {
  for (let r = 0; r < runs; r++) {
    const load = loadavg();
    const context = await browser.newContext({ serviceWorkers: 'block' });
    const page = await context.newPage();
    await page.goto(`${preview.origin}/?lang=he`);
    const mode = await page.evaluate(async () => {
      await customElements.whenDefined('harel-chat');
      const el = document.querySelector('harel-chat')!;
      await el.ready;
      return (await el.searchReady).searchMode;
    });
    if (mode !== 'hybrid') throw new Error(`the demo searches by ${mode}, not hybrid: is the real E5 in models/?`);
    const siteBefore = await askAll(page, siteQuestions);
    const memoryBefore = { heap: await heapMb(page), rssMb: chromiumRssMb() };

    // The file is handed over as a page would get it from a file input.
    const added = await page.evaluate(
      async ({ base64, name, questions }) => {
        const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
        const el = document.querySelector('harel-chat')!;
        const t0 = performance.now();
        const info = await el.addDocument(new File([bytes], name, { type: 'application/pdf' }));
        const addedMs = performance.now() - t0;
        const answers = [];
        for (const q of questions) {
          const a0 = performance.now();
          const answer = await el.ask(q);
          answers.push({ question: q, ms: performance.now() - a0, searchMode: answer.searchMode, citesIt: answer.citations.filter((c) => c.origin === 'device').map((c) => c.page) });
        }
        (window as unknown as { benchT0: number }).benchT0 = t0;
        return { info, addedMs, answers };
      },
      { base64: pdf.toString('base64'), name: basename(pdfPath), questions: ownQuestions },
    );
    // The site's own answers while the document embeds, until it is done.
    const during: number[] = [];
    let hybridMs = Number.NaN;
    for (;;) {
      const state = await page.evaluate(() => {
        const d = document.querySelector('harel-chat')!.documents[0];
        return { status: d?.embedding.status, done: d?.embedding.done, total: d?.embedding.total, at: performance.now() - (window as unknown as { benchT0: number }).benchT0 };
      });
      if (state.status === 'done' || state.status === 'failed' || state.status === 'none') {
        hybridMs = state.status === 'done' ? state.at : Number.NaN;
        break;
      }
      if (state.at > 600_000) break;
      // A customer asking about the site meanwhile, reading each answer for a second.
      during.push(...(await askAll(page, siteQuestions.slice(during.length % siteQuestions.length, (during.length % siteQuestions.length) + 1))));
      await page.waitForTimeout(1000);
    }
    const memoryAfter = { heap: await heapMb(page), rssMb: chromiumRssMb() };
    const afterHybrid = await page.evaluate(async (questions) => {
      const el = document.querySelector('harel-chat')!;
      const out = [];
      for (const q of questions) {
        const a0 = performance.now();
        const answer = await el.ask(q);
        out.push({ question: q, ms: performance.now() - a0, searchMode: answer.searchMode, citesIt: answer.citations.filter((c) => c.origin === 'device').map((c) => c.page) });
      }
      return out;
    }, ownQuestions);
    await context.close();
    const run = {
      loadavg: load,
      document: { pages: added.info.pages, chunks: added.info.chunks, lang: added.info.lang },
      addedMs: added.addedMs,
      hybridMs,
      answersAtAdd: added.answers,
      answersAfterHybrid: afterHybrid,
      siteAnswerMs: {
        before: { p50: percentile(siteBefore, 50), p95: percentile(siteBefore, 95), n: siteBefore.length },
        whileEmbedding: { p50: percentile(during, 50), p95: percentile(during, 95), max: Math.max(...during), n: during.length },
      },
      memory: { before: memoryBefore, after: memoryAfter },
    };
    results.push(run);
    process.stderr.write(
      `run ${r + 1}/${runs}: ${run.document.pages} pages, ${run.document.chunks} chunks: BM25 in ${run.addedMs.toFixed(0)} ms, hybrid in ${(hybridMs / 1000).toFixed(1)} s; site answers p95 ${run.siteAnswerMs.before.p95.toFixed(0)} ms before, ${run.siteAnswerMs.whileEmbedding.p95.toFixed(0)} ms while embedding\n`,
    );
  }
} finally {
  await browser.close();
  await preview.close();
}

const report = {
  pdf: basename(pdfPath),
  site,
  cpus: cpus().length,
  runs,
  addedMs: median(results.map((r) => r.addedMs)),
  hybridMs: median(results.map((r) => r.hybridMs)),
  results,
};
process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
if (values.json) {
  await mkdir(dirname(resolve(values.json)), { recursive: true });
  await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`);
}
