/**
 * `npm run bench [-- options]`: sizes and timings that steer the work, never asserted in tests.
 *
 * For the real index (default .tmp/harel2, built from ../shared/data/harel/corpus when missing)
 * and for synthetic corpora of 50k and 200k chunks made from it (synthetic.ts: the real chunks
 * replicated with fresh vocabulary, written to .tmp/bench-<n>/ and reused), it reports:
 * - shipped bytes: the manifest's files as stored (gzip), in all and per chunk;
 * - in Chromium (browser-bench.ts), medians of `--runs` runs: cold ready (fresh context, index
 *   downloaded from a localhost server), warm ready (second load, from IndexedDB), search
 *   p50/p95 (the worker's own timing, BM25), worker heap after load;
 * - in Node: index read + verify + decode, Retriever construction, BM25 search p50/p95;
 * - the JavaScript a page fetches before its first question (js-weight.ts), for the real index,
 *   and the search time inside `el.ask()` over the questions on that page (`--js-weight-only`:
 *   these two alone; `--widget <dir>`: of a widget built elsewhere, e.g. an older commit's).
 * `--json <file>` writes everything; `--profile` adds CPU profiles of the worker (cold load,
 * warm load, a pass of searches) with their top functions.
 *
 * Timings depend on the machine and on what else runs on it: the load average is recorded
 * beside each corpus.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';
import type { IndexManifest } from '../../widget/core/format/manifest.ts';
import { Retriever } from '../../widget/core/retrieval/retriever.ts';
import { searchVectors } from '../../widget/core/retrieval/vector-search.ts';
import { parseScriptArgs } from '../../tools/script-args.ts';
import { loadQuestions } from '../eval/questions.ts';
import { withNodeEnv } from '../node-env.ts';
import { loadQueryEmbedder } from '../commands/query-embedder.ts';
import { readIndexFolder } from '../read-index-folder.ts';
import { buildBenchPage, BENCH_PAGE_DIR, BENCH_PROFILE_PAGE_DIR } from './build-page.ts';
import { median, percentile, runBrowserBench, type BrowserBenchResult, type BrowserRun, type ProfileSummary } from './browser-bench.ts';
import { measureReader, type ReaderRun } from './gguf-reader-bench.ts';
import { type DeviceDocumentFigures, measureDeviceDocument } from './device-document.ts';
import { measureJsWeight, type JsWeightReport } from './js-weight.ts';
import { DEFAULT_EMBED_SETTINGS, measurePassageEmbedding, parseEmbedSetting, type PassageEmbedFigures } from './passage-embed-bench.ts';
import { ensureSyntheticIndex, syntheticQuestions, type SyntheticInfo } from './synthetic.ts';

const DEFAULT_INDEX = '.tmp/harel2';
const DEFAULT_CORPUS = '../shared/data/harel/corpus';
const DEFAULT_QUESTIONS = '../shared/data/harel/questions/dev-v2.json';
const DEFAULT_SCALES = [50_000, 200_000];
const WIDGET_DIR = '.tmp/bench-widget';
const PROFILE_DIR = '.tmp/bench-profiles';

/** The targets set for the binary index format (index format 2): size, load, search, heap, JavaScript. */
const TARGETS = {
  bytesPerChunk: 500,
  coldMs: 1000,
  warmMs: 300,
  searchP95At15k: 15,
  searchP95At50k: 60,
  heapMb: 60,
  jsGzipKb: 120,
};

interface NodeFigures {
  /** readIndexFolder: read, verify, inflate, decode (median of three). */
  loadMs: number;
  /** new Retriever(index) (median of three). */
  retrieverMs: number;
  /** Retriever.search, BM25, k 10, every query three times. */
  searchP50: number;
  searchP95: number;
  vectorScan: { dims: number; p50: number; p95: number } | null;
}

interface CorpusReport {
  name: string;
  dir: string;
  buildId: string;
  chunks: number;
  documents: number;
  queries: number;
  shipped: { bytes: number; rawBytes: number; perChunk: number; files: Record<string, { bytes: number; rawBytes: number }> };
  loadavg: number[];
  synthetic: SyntheticInfo | null;
  node: NodeFigures | null;
  browser: BrowserBenchResult | null;
  /** Why this corpus has no figures at all (it could not be built or read). */
  error: string | null;
}

interface BenchReport {
  date: string;
  targets: typeof TARGETS;
  machine: { cpus: number; model: string; node: string };
  options: { index: string; questions: string; scales: number[]; runs: number; k: number; rttMs: number };
  corpora: CorpusReport[];
  jsWeight: { totals: JsWeightReport['beforeReady']['totals']; files: JsWeightReport['beforeReady']['files']; readyMs: number; asked: JsWeightReport['asked'] } | { error: string } | null;
  /** The reader's call time in Chromium, 1 and 2 threads (--reader): gguf-reader-bench.ts. */
  reader?: ReaderRun[];
  /** A customer's PDF added to the demo in Chromium (--device-document): device-document.ts. */
  deviceDocument?: DeviceDocumentFigures;
  /** The question's path in Chromium with the real E5 (--query-browser): demo/scripts/query-model-bench.ts's report. */
  queryBrowser?: QueryBrowserFigures;
  /** Passage embedding in Node, as the build runs it (--embed): passage-embed-bench.ts. */
  passageEmbedding?: PassageEmbedFigures | { error: string };
  /** Questions embedded in Node by the question model (--query-model or the index's), real index only. */
  queryModel?: QueryModelFigures | { error: string } | null;
}

type QueryBrowserFigures = Record<string, unknown> | { error: string };

interface QueryModelFigures {
  /** The model that embedded the questions: the index's embedder, or a question model tuned against it. */
  id: string;
  questions: number;
  loadMs: number;
  embedP50Ms: number;
  embedP95Ms: number;
}

const USAGE = `usage: npm run bench [-- options]

  --index <dir>        the real index (default ${DEFAULT_INDEX}; built from ${DEFAULT_CORPUS} when missing)
  --questions <file>   questions to search (default ${DEFAULT_QUESTIONS})
  --scale <n,n>        synthetic corpora sizes in chunks (default ${DEFAULT_SCALES.join(',')}; 0 for none)
  --rebuild            rebuild the synthetic corpora even when .tmp/bench-<n>/ holds them
  --runs <n>           browser runs per corpus, medians reported (default 3)
  --rtt <ms>           hold the manifest's response back this long in Chromium, as a phone's round trip
                       would (default 0: localhost)
  --json <file>        write every figure as JSON
  --profile            CPU profiles of the search worker (cold load, warm load, searches): top functions
                       printed, the profiles written to ${PROFILE_DIR}/ (open them in DevTools)
  --snapshot           a heap snapshot of the worker after load (memory outside the V8 heap too)
  --no-browser         Node figures only
  --skip-js-weight     do not build the widget and measure the JavaScript fetched before a question
  --js-weight-only     only that: the JavaScript and wasm before the first question, then every question
                       through el.ask() (answer.timings.search p50/p95), on the real index
  --widget <dir>       measure this built widget folder instead of building the tree's (npm run build:widget's)
  --reader             also the reader's call time in Chromium (GGUF from models/, 1 and 2 threads,
                       ten ~150-token prompts: builder/bench/gguf-reader-bench.ts; minutes)
  --reader-only        the reader's figures alone
  --device-document <pdf>
                       also a customer's PDF added to the demo in Chromium with the real E5: time to
                       answer by BM25, to hybrid, the site's answers meanwhile, memory
                       (demo/scripts/device-document-bench.ts; minutes)
  --device-question <q>  a question about that PDF, asked once it is added (repeatable)
  --device-document-only  those figures alone
  --orama-save         also Orama's own save() of the real chunks with random vectors (slow)
  --dims <n>           vector width for --orama-save (default 384)
  --embed              also passage embedding in Node as the build runs it (the real model from --model-dir):
                       passages/s and GFLOP/s on a seeded sample of the real index's chunks, the builder's
                       one session of before against its thread pool (builder/bench/passage-embed-bench.ts)
  --embed-only         those figures alone
  --embed-sample <n>   passages in that sample (default 384)
  --query-browser      also the question's path in Chromium with the real E5, the page cross-origin isolated
                       (npm run bench:query-model: hybrid ready first and from the cache, the question's
                       embedding, each step of an answer; --runs runs, default 2 here)
  --query-browser-only those figures alone
  --query-browser-index <dir>  an index embedded with that E5 (e.g. the real corpus's) in place of the demo's;
                       its questions are --questions
  --query-model <id>   the question model whose embedding time is measured in Node, when the real
                       index has vectors (default: the manifest's embedder.queryModel, else the embedder)
  --model-dir <dir>    where that model's folder is (default models)
  --help               this text
`;

/** One part's figures (a `--…-only` run) as JSON at `path`, with the date and the machine; nothing without a path. */
async function writePartReport(path: string | undefined, figures: Record<string, unknown>): Promise<void> {
  if (!path) return;
  await mkdir(dirname(resolve(path)), { recursive: true });
  await writeFile(path, `${JSON.stringify({ date: new Date().toISOString(), machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown' }, ...figures }, null, 2)}\n`);
  log(`wrote ${path}`);
}

/** The customer's PDF, in a line. */
function printDeviceDocument(figures: DeviceDocumentFigures): void {
  console.log(`\ncustomer's PDF ${figures.pdf} (Chromium, real E5): answers by BM25 ${ms(figures.addedMs)} after it is added, by hybrid search after ${ms(figures.hybridMs)}`);
}

const ms = (x: number) => (Number.isFinite(x) ? `${x.toFixed(x < 10 ? 1 : 0)} ms` : '—');
const mb = (x: number | null | undefined) => (x !== null && x !== undefined && Number.isFinite(x) ? `${(x / 1e6).toFixed(1)} MB` : '—');
const log = (line: string) => process.stderr.write(`${line}\n`);

function randomUnitVector(dim: number, seed: number): number[] {
  let s = seed * 2654435761 + 1;
  const v = Array.from({ length: dim }, () => {
    s = (s * 1103515245 + 12345) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
  const norm = Math.hypot(...v);
  return v.map((x) => x / norm);
}

async function ensureRealIndex(dir: string, isDefault: boolean): Promise<void> {
  if (existsSync(join(dir, 'manifest.json'))) return;
  if (!isDefault || !existsSync(DEFAULT_CORPUS)) throw new Error(`no index at ${dir}: build one (npx harel-builder build <corpus> --out ${dir} --no-embed)`);
  log(`no index at ${dir}: building it from ${DEFAULT_CORPUS} (BM25 only)`);
  const run = spawnSync(process.execPath, ['builder/bin/harel-builder.mjs', 'build', DEFAULT_CORPUS, '--out', dir, '--no-embed'], { stdio: 'inherit' });
  if (run.status !== 0) throw new Error(`building ${dir} failed`);
}

async function shippedBytes(dir: string): Promise<CorpusReport['shipped'] & { manifest: IndexManifest }> {
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as IndexManifest;
  const files: Record<string, { bytes: number; rawBytes: number }> = {};
  for (const [role, f] of Object.entries(manifest.files)) files[role] = { bytes: f!.bytes, rawBytes: f!.rawBytes };
  const bytes = Object.values(files).reduce((s, f) => s + f.bytes, 0);
  const rawBytes = Object.values(files).reduce((s, f) => s + f.rawBytes, 0);
  return { manifest, bytes, rawBytes, perChunk: bytes / manifest.counts.chunks, files };
}

async function nodeFigures(dir: string, queries: readonly string[]): Promise<NodeFigures> {
  const loads: number[] = [];
  const retrievers: number[] = [];
  let retriever: Retriever | null = null;
  for (let i = 0; i < 3; i++) {
    retriever = null;
    let t = performance.now();
    const index = await readIndexFolder(dir);
    loads.push(performance.now() - t);
    t = performance.now();
    retriever = new Retriever(index);
    retrievers.push(performance.now() - t);
  }
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const q of queries) {
      const s = performance.now();
      retriever!.search(q, { mode: 'bm25', k: 10 });
      times.push(performance.now() - s);
    }
  }
  let vectorScan: NodeFigures['vectorScan'] = null;
  const vectors = retriever!.index.vectors;
  if (vectors) {
    const vt: number[] = [];
    for (let i = 0; i < 20; i++) {
      const q = new Float32Array(randomUnitVector(vectors.dim, i));
      const s = performance.now();
      searchVectors(vectors, q, { k: 50 });
      vt.push(performance.now() - s);
    }
    vectorScan = { dims: vectors.dim, p50: percentile(vt, 50), p95: percentile(vt, 95) };
  }
  return { loadMs: median(loads), retrieverMs: median(retrievers), searchP50: percentile(times, 50), searchP95: percentile(times, 95), vectorScan };
}

/** Orama's own persistence of the same chunks, text and a `dims`-wide vector each (the format-1 comparison). */
async function oramaSave(dir: string, dims: number): Promise<void> {
  const { create, insertMultiple, save } = await import('@orama/orama');
  const index = await readIndexFolder(dir);
  const n = index.chunks.length;
  const db = create({ schema: { body: 'string', domain: 'enum', embedding: `vector[${dims}]` } as const });
  const rows = index.chunks.map((c, i) => ({ id: String(i), body: c.text, domain: index.documents[c.doc].domain, embedding: randomUnitVector(dims, i) }));
  await insertMultiple(db, rows, 500);
  try {
    const json = JSON.stringify(save(db));
    const gz = gzipSync(json).byteLength;
    console.log(
      `Orama save() of the same ${n} chunks with ${dims}-dim vectors: ${(json.length / 1024 / 1024).toFixed(1)} MB JSON (${(json.length / n).toFixed(0)} bytes/chunk), ${(gz / 1024 / 1024).toFixed(1)} MB gzipped (${(gz / n).toFixed(0)} bytes/chunk)`,
    );
  } catch (error) {
    console.log(`Orama save() of the same ${n} chunks with ${dims}-dim vectors failed: ${error instanceof Error ? error.message : String(error)}`);
  }
  console.log(`this format with ${dims}-dim int8 vectors would add ${dims + 4} bytes/chunk raw (${(((dims + 4) * n) / 1024 / 1024).toFixed(1)} MB)`);
}

/** The widget as `npm run build:widget` builds it, into a folder of the bench's own. */
async function buildWidget(outDir: string): Promise<string> {
  await withNodeEnv('production', () => build({ configFile: resolve('vite.widget.config.ts'), logLevel: 'warn', build: { outDir: resolve(outDir), emptyOutDir: true } }));
  return resolve(outDir);
}

async function jsWeight(indexDir: string, queries: readonly string[], widgetDir?: string): Promise<BenchReport['jsWeight']> {
  try {
    if (!widgetDir) log(`building the widget into ${WIDGET_DIR} for the JavaScript weight`);
    const widget = widgetDir ? resolve(widgetDir) : await buildWidget(WIDGET_DIR);
    // builder/bench/js-weight.ts: the JavaScript and wasm fetched before the first question, then the questions through el.ask().
    const report = await measureJsWeight({ dir: widget, index: indexDir, ask: queries });
    return { totals: report.beforeReady.totals, files: report.beforeReady.files, readyMs: report.readyMs, asked: report.asked };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

function corpusName(chunks: number, synthetic: boolean): string {
  return synthetic ? `synthetic ${chunks.toLocaleString('en-US')}` : `real ${chunks.toLocaleString('en-US')}`;
}

async function measureCorpus(
  name: string,
  dir: string,
  queries: readonly string[],
  synthetic: SyntheticInfo | null,
  options: { browser: boolean; runs: number; k: number; profile: boolean; snapshot: boolean; pageDir: string; profilePageDir: string | null; rttMs: number },
): Promise<CorpusReport> {
  const shipped = await shippedBytes(dir);
  const { manifest, ...bytes } = shipped;
  const report: CorpusReport = {
    name,
    dir,
    buildId: manifest.buildId,
    chunks: manifest.counts.chunks,
    documents: manifest.counts.documents,
    queries: queries.length,
    shipped: bytes,
    loadavg: loadavg(),
    synthetic,
    node: null,
    browser: null,
    error: null,
  };
  log(`${name} (${dir}, build ${manifest.buildId}): ${report.chunks} chunks, ${mb(bytes.bytes)} shipped, load average ${report.loadavg.map((x) => x.toFixed(2)).join(' ')}`);
  try {
    report.node = await nodeFigures(dir, queries);
    log(`  Node: load ${ms(report.node.loadMs)}, Retriever ${ms(report.node.retrieverMs)}, search p50 ${ms(report.node.searchP50)} / p95 ${ms(report.node.searchP95)}`);
  } catch (error) {
    report.error = `Node: ${error instanceof Error ? error.message : String(error)}`;
    log(`  ${report.error}`);
  }
  if (options.browser) {
    report.browser = await runBrowserBench({
      indexDir: dir,
      files: Object.values(manifest.files).map((f) => f!.path),
      queries,
      pageDir: options.pageDir,
      profilePageDir: options.profile ? options.profilePageDir : null,
      profilePrefix: options.profile ? resolve(PROFILE_DIR, name.replace(/[^a-z0-9]+/gi, '-')) : null,
      runs: options.runs,
      k: options.k,
      snapshot: options.snapshot,
      manifestDelayMs: options.rttMs,
      log,
    });
  }
  return report;
}

function printTable(report: BenchReport): void {
  const cs = report.corpora;
  const head = ['', 'target', ...cs.map((c) => c.name)];
  const rows: string[][] = [];
  const row = (label: string, target: string, value: (c: CorpusReport) => string) => rows.push([label, target, ...cs.map((c) => value(c))]);
  const b = (c: CorpusReport) => (c.browser?.runs.length ? c.browser : null);
  row('shipped (gzip, all files)', '', (c) => mb(c.shipped.bytes));
  row('  bytes per chunk', `≤ ${TARGETS.bytesPerChunk}`, (c) => c.shipped.perChunk.toFixed(0));
  row('cold ready (download)', `≤ ${TARGETS.coldMs} ms`, (c) => ms(b(c)?.median.coldMs ?? NaN));
  row('warm ready (IndexedDB)', `≤ ${TARGETS.warmMs} ms`, (c) => ms(b(c)?.median.warmMs ?? NaN));
  row('search p50 (worker)', '', (c) => ms(b(c)?.median.searchP50 ?? NaN));
  row('search p95 (worker)', `≤ ${TARGETS.searchP95At15k} / ${TARGETS.searchP95At50k} ms`, (c) => ms(b(c)?.median.searchP95 ?? NaN));
  row('  first pass p95 (JIT cold)', '', (c) => ms(b(c)?.median.firstPassP95 ?? NaN));
  row('worker heap used (V8)', `≤ ${TARGETS.heapMb} MB`, (c) => mb(b(c)?.median.heapUsedBytes));
  row('  + ArrayBuffers', '', (c) => mb(b(c)?.median.heapBackingStoreBytes));
  row('  heap snapshot, all', '', (c) => mb(c.browser?.snapshot?.total));
  row('Node: read + decode', '', (c) => ms(c.node?.loadMs ?? NaN));
  row('Node: new Retriever', '', (c) => ms(c.node?.retrieverMs ?? NaN));
  row('Node: search p50 / p95', '', (c) => (c.node ? `${ms(c.node.searchP50)} / ${ms(c.node.searchP95)}` : '—'));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) => cells.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
  console.log(line(head));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const r of rows) console.log(line(r));
  const rtt = report.options.rttMs > 0 ? `the manifest answered ${report.options.rttMs} ms late, ` : '';
  const where = cs.some((c) => c.browser) ? `medians of ${report.options.runs} runs in Chromium, ${rtt}` : 'Node only, ';
  console.log(`(${where}${report.options.k} results a search; ${report.machine.cpus} CPUs, ${report.machine.model}; load average per corpus: ${cs.map((c) => c.loadavg[0].toFixed(1)).join(', ')})`);
  for (const c of cs) {
    const problems = [c.error, c.browser?.error].filter(Boolean);
    if (problems.length) console.log(`${c.name}: FAILED — ${problems.join('; ')}${c.browser?.runs.length ? ` (after ${c.browser.runs.length} complete run(s); figures above are theirs)` : ''}`);
  }
}

function printDetails(report: BenchReport): void {
  for (const c of report.corpora) {
    const runs = c.browser?.runs ?? [];
    console.log(`\n${c.name} (${c.dir}, build ${c.buildId}, ${c.documents} documents):`);
    if (runs.length) {
      const byWarm = [...runs].sort((a, b) => a.warm.ms - b.warm.ms)[Math.floor((runs.length - 1) / 2)];
      const byCold = [...runs].sort((a, b) => a.cold.ms - b.cold.ms)[Math.floor((runs.length - 1) / 2)];
      const phases = (p: { phase: string; ms: number }[]) => p.map((x) => `${x.phase} ${ms(x.ms)}`).join(', ');
      console.log(
        `  ${c.queries} queries, ${runs[0].search.routed} routed to a domain, ${runs[0].search.empty} with no hit; search round trip p50 ${ms(median(runs.map((r) => r.search.roundTripP50)))} / p95 ${ms(median(runs.map((r) => r.search.roundTripP95)))}`,
      );
      console.log(`  cold (median run): ${phases(byCold.cold.phases)}`);
      console.log(`  warm (median run): ${phases(byWarm.warm.phases)}`);
      const floor = (key: Exclude<keyof BrowserRun['floors'], 'errors'>) => {
        const values = runs.map((r) => r.floors[key]).filter((x): x is number => x !== null);
        return values.length ? ms(median(values)) : 'failed';
      };
      console.log(
        `  floor, the same files alone on the page's thread: IndexedDB read ${floor('idbRead')}, sha256 ${floor('sha256')}, gunzip ${floor('gunzip')}; stored inflated instead: IndexedDB read ${floor('idbReadInflated')}, sha256 ${floor('sha256Inflated')}`,
      );
      const floorErrors = [...new Set(runs.flatMap((r) => r.floors.errors))];
      if (floorErrors.length) console.log(`  floor measurements that failed: ${floorErrors.join('; ')}`);
    }
    const files = Object.entries(c.shipped.files)
      .map(([role, f]) => `${role} ${mb(f.bytes)} (${mb(f.rawBytes)} raw)`)
      .join(', ');
    console.log(`  files: ${files}`);
    if (c.synthetic) {
      const s = c.synthetic;
      console.log(
        `  synthetic: ${s.replicas} replicas of ${s.source.chunks} chunks; ${s.terms.synthetic} terms (real ${s.terms.source}); ${s.tokensPerChunk.synthetic.toFixed(1)} BM25 tokens a chunk (real ${s.tokensPerChunk.source.toFixed(1)}); ${s.sharedTerms} rewritten terms met a real one`,
      );
    }
    if (c.browser?.snapshot) {
      const top = Object.entries(c.browser.snapshot.byType)
        .sort((a, b) => b[1] - a[1])
        .slice(0, 5)
        .map(([t, n]) => `${t} ${mb(n)}`)
        .join(', ');
      console.log(`  heap snapshot after load: ${mb(c.browser.snapshot.total)} (${top})`);
    }
    const profiles = c.browser?.profiles;
    if (profiles) {
      const show = (what: string, p: ProfileSummary) => {
        console.log(`  CPU profile, ${what} (${ms(p.durationMs)} profiled${p.file ? `, ${p.file}` : ''}): self / total`);
        for (const e of p.top.slice(0, 12)) console.log(`    ${ms(e.selfMs).padStart(9)} ${ms(e.totalMs).padStart(9)}  ${e.fn}`);
      };
      show('cold load', profiles.cold);
      show('warm load', profiles.warm);
      show(`one pass of ${c.queries} searches`, profiles.search);
    }
  }
  const jw = report.jsWeight;
  if (jw && 'totals' in jw) {
    console.log(
      `\nJavaScript fetched before the first question (widget build, real index, js-weight.ts): ${(jw.totals.js.gzipBytes / 1000).toFixed(1)} KB gzipped (target ≤ ${TARGETS.jsGzipKb} KB), wasm ${(jw.totals.wasm.gzipBytes / 1000).toFixed(1)} KB; ${jw.totals.files} files`,
    );
    const a = jw.asked;
    if (a) {
      console.log(
        `search inside el.ask() (answer.timings.search, ${a.questions} questions, each in a fresh conversation, ${a.searchMode}${a.failed ? `, ${a.failed} failed` : ''}): p50 ${ms(a.search.p50)} / p95 ${ms(a.search.p95)}; whole answer p50 ${ms(a.total.p50)} / p95 ${ms(a.total.p95)}`,
      );
    }
  } else if (jw) {
    console.log(`\nJavaScript weight: FAILED — ${jw.error}`);
  }
}

/**
 * The question model's load and per-question embedding time in Node (the widget's own code for a
 * .q4w model), on an index with vectors; null for a BM25-only index (the default bench index).
 * A mismatched pair is reported as QUERY_MODEL_MISMATCH's message, not measured.
 */
async function measureQueryModel(indexDir: string, queries: string[], modelDir: string, queryModel: string | undefined): Promise<QueryModelFigures | { error: string } | null> {
  const index = await readIndexFolder(indexDir);
  if (!index.vectors || !index.manifest.embedder) {
    if (queryModel) log(`--query-model ${queryModel}: ${indexDir} has no vectors, no question is embedded`);
    return null;
  }
  const started = performance.now();
  try {
    const embedder = await loadQueryEmbedder(index, { mode: 'hybrid', modelDir, queryModel });
    if (!embedder) return null;
    const loadMs = performance.now() - started;
    const times: number[] = [];
    for (const q of queries.slice(0, 100)) {
      const t = performance.now();
      await embedder.embed([q]);
      times.push(performance.now() - t);
    }
    await embedder.dispose();
    return { id: embedder.id, questions: times.length, loadMs, embedP50Ms: median(times), embedP95Ms: percentile(times, 95) };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

async function main(): Promise<void> {
  const { values } = parseScriptArgs(USAGE, {
    options: {
      index: { type: 'string' },
      questions: { type: 'string' },
      scale: { type: 'string' },
      rebuild: { type: 'boolean' },
      runs: { type: 'string' },
      rtt: { type: 'string' },
      k: { type: 'string' },
      json: { type: 'string' },
      profile: { type: 'boolean' },
      snapshot: { type: 'boolean' },
      'no-browser': { type: 'boolean' },
      'skip-js-weight': { type: 'boolean' },
      'js-weight-only': { type: 'boolean' },
      widget: { type: 'string' },
      'orama-save': { type: 'boolean' },
      dims: { type: 'string' },
      reader: { type: 'boolean' },
      'reader-only': { type: 'boolean' },
      'device-document': { type: 'string' },
      'device-question': { type: 'string', multiple: true },
      'device-document-only': { type: 'boolean' },
      'query-model': { type: 'string' },
      'model-dir': { type: 'string' },
      embed: { type: 'boolean' },
      'embed-only': { type: 'boolean' },
      'query-browser': { type: 'boolean' },
      'query-browser-only': { type: 'boolean' },
      'query-browser-index': { type: 'string' },
      'embed-sample': { type: 'string' },
    },
  });
  const measureEmbedding = async (indexDir: string) =>
    measurePassageEmbedding(
      { index: indexDir, sample: Number(values['embed-sample'] ?? 384), modelDir: values['model-dir'] ?? 'models', settings: DEFAULT_EMBED_SETTINGS.map(parseEmbedSetting) },
      log,
    ).catch((error: unknown) => ({ error: error instanceof Error ? error.message : String(error) }));
  /** The question's path in Chromium with the real E5 (demo/scripts/query-model-bench.ts, its own report), or why not. */
  const measureQueryBrowser = async (): Promise<QueryBrowserFigures> => {
    const json = resolve('.tmp/bench-query-browser.json');
    const args = ['--import', 'tsx', 'demo/scripts/query-model-bench.ts', '--runs', String(values.runs ?? 2), '--json', json];
    if (values['query-browser-index']) args.push('--index', values['query-browser-index'], '--questions', values.questions ?? DEFAULT_QUESTIONS);
    const run = spawnSync(process.execPath, args, { stdio: 'inherit' });
    if (run.status !== 0) return { error: `demo/scripts/query-model-bench.ts exited with ${run.status ?? run.signal}` };
    return JSON.parse(await readFile(json, 'utf8')) as Record<string, unknown>;
  };
  if (values['query-browser-only']) {
    const queryBrowser = await measureQueryBrowser();
    await writePartReport(values.json, { queryBrowser });
    return;
  }
  if (values['embed-only']) {
    const indexDir = values.index ?? DEFAULT_INDEX;
    await ensureRealIndex(indexDir, values.index === undefined);
    const passageEmbedding = await measureEmbedding(indexDir);
    await writePartReport(values.json, { passageEmbedding });
    return;
  }
  if (values['device-document-only']) {
    if (!values['device-document']) throw new Error('--device-document-only needs --device-document <pdf>');
    const deviceDocument = measureDeviceDocument(values['device-document'], values['device-question'] ?? []);
    printDeviceDocument(deviceDocument);
    await writePartReport(values.json, { deviceDocument });
    return;
  }
  if (values['reader-only']) {
    const reader = await measureReader({ log });
    await writePartReport(values.json, { reader });
    return;
  }
  const indexDir = values.index ?? DEFAULT_INDEX;
  await ensureRealIndex(indexDir, values.index === undefined);
  const questionsFile = values.questions ?? DEFAULT_QUESTIONS;
  const questions = existsSync(questionsFile) ? (await loadQuestions(questionsFile)).map((q) => q.question) : null;
  if (!questions) log(`${questionsFile} not found: searching three sample questions`);
  const queries = questions ?? ['ביטוח רכב השתתפות עצמית', 'travel insurance baggage', 'תקופת אכשרה'];
  if (values['js-weight-only']) {
    const report = { date: new Date().toISOString(), loadavg: loadavg(), index: resolve(indexDir), jsWeight: await jsWeight(indexDir, queries, values.widget) };
    printDetails({ corpora: [], jsWeight: report.jsWeight } as unknown as BenchReport);
    console.log(
      `(load average at the start ${report.loadavg.map((x) => x.toFixed(2)).join(' ')}, at the end ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')})`,
    );
    await writePartReport(values.json, report);
    return;
  }
  const scales = (values.scale ?? DEFAULT_SCALES.join(','))
    .split(',')
    .map((s) => Number(s.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
  const runs = Number(values.runs ?? 3);
  const k = Number(values.k ?? 10);
  const browser = !values['no-browser'];

  let pageDir = BENCH_PAGE_DIR;
  let profilePageDir: string | null = null;
  if (browser) {
    log(`building the bench page into ${BENCH_PAGE_DIR}`);
    pageDir = await buildBenchPage(BENCH_PAGE_DIR);
    if (values.profile) profilePageDir = await buildBenchPage(BENCH_PROFILE_PAGE_DIR, { minify: false });
  }
  const rttMs = Number(values.rtt ?? 0);
  if (!Number.isFinite(rttMs) || rttMs < 0) throw new Error('--rtt takes milliseconds (0 or more)');
  const corpusOptions = { browser, runs, k, profile: Boolean(values.profile), snapshot: Boolean(values.snapshot), pageDir, profilePageDir, rttMs };

  const report: BenchReport = {
    date: new Date().toISOString(),
    targets: TARGETS,
    machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
    options: { index: resolve(indexDir), questions: resolve(questionsFile), scales, runs, k, rttMs },
    corpora: [],
    jsWeight: null,
  };

  const realChunks = JSON.parse(await readFile(join(indexDir, 'manifest.json'), 'utf8')).counts.chunks as number;
  report.corpora.push(await measureCorpus(corpusName(realChunks, false), resolve(indexDir), queries, null, corpusOptions));
  if (values['orama-save']) await oramaSave(indexDir, Number(values.dims ?? 384));
  report.queryModel = await measureQueryModel(indexDir, queries, values['model-dir'] ?? 'models', values['query-model']);
  if (values.embed) report.passageEmbedding = await measureEmbedding(indexDir);
  if (values['query-browser']) report.queryBrowser = await measureQueryBrowser();

  for (const n of scales) {
    const dir = resolve(`.tmp/bench-${n}`);
    let info: SyntheticInfo;
    try {
      const made = await ensureSyntheticIndex(indexDir, dir, n, { rebuild: values.rebuild, log });
      info = made.info;
      log(`${made.built ? 'built' : 'reusing'} ${dir} (${info.replicas} replicas${made.built ? `, ${info.buildSeconds.toFixed(0)} s` : ''})`);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log(`synthetic ${n}: could not be built: ${message}`);
      report.corpora.push({
        name: corpusName(n, true),
        dir,
        buildId: '',
        chunks: n,
        documents: 0,
        queries: 0,
        shipped: { bytes: NaN, rawBytes: NaN, perChunk: NaN, files: {} },
        loadavg: loadavg(),
        synthetic: null,
        node: null,
        browser: null,
        error: `build: ${message}`,
      });
      continue;
    }
    report.corpora.push(await measureCorpus(corpusName(n, true), dir, syntheticQuestions(queries, info.replicas), info, corpusOptions));
  }

  if (browser && !values['skip-js-weight']) report.jsWeight = await jsWeight(indexDir, queries, values.widget);
  if (values.reader) report.reader = await measureReader({ log });
  if (values['device-document']) report.deviceDocument = measureDeviceDocument(values['device-document'], values['device-question'] ?? []);

  console.log('');
  printTable(report);
  printDetails(report);
  if (report.deviceDocument) printDeviceDocument(report.deviceDocument);
  const qm = report.queryModel;
  if (qm && 'error' in qm) console.log(`\nquestion model: ${qm.error}`);
  else if (qm)
    console.log(`\nquestion model ${qm.id} (Node): loaded in ${qm.loadMs.toFixed(0)} ms, ${qm.questions} questions embedded, p50 ${qm.embedP50Ms.toFixed(1)} ms, p95 ${qm.embedP95Ms.toFixed(1)} ms`);
  if (values.json) {
    await mkdir(dirname(resolve(values.json)), { recursive: true });
    await writeFile(values.json, `${JSON.stringify(report, null, 2)}\n`);
    log(`wrote ${values.json}`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
