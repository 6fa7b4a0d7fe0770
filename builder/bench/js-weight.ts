/**
 * `npx tsx builder/bench/js-weight.ts <dir> --index <folder|url> [--model-base <folder|url>]
 * [--question <text>] [--ask <questions.json>] [--service-worker] [--json]`: the JavaScript and
 * WebAssembly a page fetches before its first question, and with `--ask` the search time inside
 * `el.ask()` (each question in a fresh conversation, `answer.timings.search`: every search the loop
 * made for it, in the worker, as a site owner's page runs them). Opens a built demo site (`npm run build`'s dist/) or widget folder
 * (`npm run build:widget`'s dist/widget/) in Chromium, waits until `<harel-chat>` is ready, and
 * lists every .js/.mjs/.wasm file served so far with its gzipped size.
 *
 * Sizes are measured on the server side, from the files sent: the static server sends them
 * uncompressed, so each file's gzip size is computed here (zlib's default level 6, what common
 * servers send; Vite's build report uses another level and differs by about 1 %). Requests the
 * browser makes are counted whoever makes them (page, workers, and the service worker when it is
 * allowed), so nothing hides in a worker.
 *
 * The service worker is blocked by default: its install precaches the whole app for offline use
 * in the background (onnxruntime's wasm included), which is the PWA's choice and not code the
 * page needs to answer; `--service-worker` counts it too.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';
import { createError, isHarelError } from '../errors.ts';
import { startStaticServer } from '../../tools/static-server.ts';
import { CHROMIUM_ARGS, findChromium } from '../browser/chromium.ts';
import { loadQuestions } from '../eval/questions.ts';

export interface JsWeightOptions {
  /** A built demo site (holds index.html and assets/) or widget folder (holds harel-chat.js). */
  dir: string;
  /**
   * The index: a local folder (or its manifest.json), served at /harel-index/, or the URL of a
   * manifest.json (absolute, or a path on the served origin).
   */
  index: string;
  /** The embedder's folder (served at /harel-models/) or URL; default: the page's own (the demo's /models/), none for a widget folder. */
  modelBase?: string;
  /** Asked once the widget is ready; what answering it fetches is reported apart. */
  question?: string;
  /** Asked after `question`, each through `el.clear()` then `el.ask()`: the answers' timings. */
  ask?: readonly string[];
  /** Let the demo's service worker install (and count what it precaches). Default false. */
  serviceWorker?: boolean;
  /** The Chromium executable; default builder/browser/chromium.ts's choice. */
  executablePath?: string;
  /** How long to wait for the widget to be ready, and for an answer. Default 120 s. */
  timeoutMs?: number;
}

export type FetchedKind = 'js' | 'wasm';

export interface FetchedFile {
  /** The URL path it was served at. */
  path: string;
  kind: FetchedKind;
  bytes: number;
  gzipBytes: number;
}

export interface WeightTotals {
  files: number;
  bytes: number;
  gzipBytes: number;
  js: { bytes: number; gzipBytes: number };
  wasm: { bytes: number; gzipBytes: number };
}

export interface JsWeightPhase {
  files: FetchedFile[];
  totals: WeightTotals;
}

export interface JsWeightReport {
  layout: 'site' | 'widget';
  /** The page that was opened (on a server that is gone once the function returns). */
  pageUrl: string;
  indexUrl: string;
  /** What `el.ready` said. */
  ready: { buildId: string; chunkCount: number; searchMode: 'bm25' | 'hybrid'; embedderError: string | null };
  /** Milliseconds from navigation to `el.ready`. */
  readyMs: number;
  /** Everything fetched before the widget was ready to take a question. */
  beforeReady: JsWeightPhase;
  /** What answering `question` fetched on top; null without a question. */
  question: (JsWeightPhase & { refused: boolean; searchMode: string }) | null;
  /** The `ask` questions' timings (ms), p50 / p95 / max; null without them. */
  asked: AskedTimings | null;
}

export interface AskedTimings {
  questions: number;
  /** Questions that rejected, not timed. */
  failed: number;
  searchMode: string;
  search: { p50: number; p95: number; max: number };
  total: { p50: number; p95: number; max: number };
}

function percentiles(values: readonly number[]): { p50: number; p95: number; max: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return { p50: at(50), p95: at(95), max: sorted.at(-1) ?? NaN };
}

const KINDS: Record<string, FetchedKind> = { '.js': 'js', '.mjs': 'js', '.wasm': 'wasm' };

export function totals(files: readonly FetchedFile[]): WeightTotals {
  const sum = (kind?: FetchedKind) => {
    const of = files.filter((f) => !kind || f.kind === kind);
    return { bytes: of.reduce((s, f) => s + f.bytes, 0), gzipBytes: of.reduce((s, f) => s + f.gzipBytes, 0) };
  };
  return { files: files.length, ...sum(), js: sum('js'), wasm: sum('wasm') };
}

function layoutOf(dir: string): 'site' | 'widget' {
  if (existsSync(join(dir, 'harel-chat.js'))) return 'widget';
  if (existsSync(join(dir, 'index.html')) && existsSync(join(dir, 'assets'))) return 'site';
  throw createError('BAD_ARGUMENT', `${dir} is neither a widget folder (harel-chat.js) nor a demo site build (index.html and assets/).`);
}

/** A local folder (or a file in it) → the folder; anything else is taken as a URL. */
function localFolder(pathOrUrl: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(pathOrUrl) || !existsSync(pathOrUrl)) return null;
  return statSync(pathOrUrl).isDirectory() ? resolve(pathOrUrl) : dirname(resolve(pathOrUrl));
}

const escapeAttr = (s: string) => s.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;');

function widgetPage(indexUrl: string, modelBase: string | null): string {
  const model = modelBase ? ` model-base="${escapeAttr(modelBase)}"` : '';
  return `<!doctype html>
<html lang="he" dir="rtl"><head><meta charset="utf-8"><title>js-weight</title>
<script type="module" src="/harel-chat/harel-chat.js"></script></head>
<body><harel-chat index="${escapeAttr(indexUrl)}"${model}></harel-chat></body></html>`;
}

/** How long without a new request counts as the page having settled after ready, and the longest wait for it. */
const QUIET_MS = 500;
const SETTLE_LIMIT_MS = 10_000;

async function untilQuiet(count: () => number): Promise<void> {
  const until = Date.now() + SETTLE_LIMIT_MS;
  for (let seen = count(); Date.now() < until; ) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    if (count() === seen) return;
    seen = count();
  }
}

export async function measureJsWeight(options: JsWeightOptions): Promise<JsWeightReport> {
  const dir = resolve(options.dir);
  if (!existsSync(dir)) throw createError('INPUT_NOT_FOUND', dir);
  const layout = layoutOf(dir);
  const timeout = options.timeoutMs ?? 120_000;
  const mounts: Record<string, string> = {};
  const indexFolder = localFolder(options.index);
  if (indexFolder) {
    if (!existsSync(join(indexFolder, 'manifest.json'))) throw createError('INDEX_NOT_FOUND', indexFolder);
    mounts['/harel-index/'] = indexFolder;
  }
  const indexUrl = indexFolder ? '/harel-index/manifest.json' : options.index;
  const modelFolder = options.modelBase ? localFolder(options.modelBase) : null;
  if (modelFolder) mounts['/harel-models/'] = modelFolder;
  const modelBase = modelFolder ? '/harel-models/' : (options.modelBase ?? null);
  if (layout === 'widget') mounts['/harel-chat/'] = dir;
  // The widget page is written to a folder of its own, so a file named index.html in the widget
  // folder cannot stand in for it.
  const pageDir = layout === 'widget' ? mkdtempSync(join(tmpdir(), 'harel-js-weight-')) : null;

  const served: FetchedFile[] = [];
  const sizes = new Map<string, { bytes: number; gzipBytes: number }>();
  const server = await startStaticServer({
    root: pageDir ?? dir,
    host: 'localhost',
    mounts,
    handle: (path, res) => {
      if (!pageDir || (path !== '/' && path !== '/index.html')) return false;
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.end(widgetPage(indexUrl, modelBase));
      return true;
    },
    onServe: (path, file) => {
      const kind = KINDS[extname(file)];
      if (!kind) return;
      let size = sizes.get(file);
      if (!size) {
        const bytes = readFileSync(file);
        size = { bytes: bytes.length, gzipBytes: gzipSync(bytes).length };
        sizes.set(file, size);
      }
      served.push({ path, kind, ...size });
    },
  });
  const browser = await chromium.launch({ executablePath: options.executablePath ?? findChromium(), args: CHROMIUM_ARGS });
  try {
    const context = await browser.newContext({ serviceWorkers: options.serviceWorker ? 'allow' : 'block' });
    const page = await context.newPage();
    page.setDefaultTimeout(timeout);
    const query = new URLSearchParams();
    if (layout === 'site') {
      query.set('index', indexUrl);
      if (modelBase) query.set('model-base', modelBase);
    }
    const pageUrl = `${server.origin}/${query.size ? `?${query}` : ''}`;
    const started = Date.now();
    await page.goto(pageUrl);
    const ready = await page.evaluate(async () => {
      await customElements.whenDefined('harel-chat');
      try {
        const info = await document.querySelector('harel-chat')!.ready;
        return { ok: true as const, info: { buildId: info.buildId, chunkCount: info.chunkCount, searchMode: info.searchMode, embedderError: info.embedderError } };
      } catch (error) {
        return { ok: false as const, code: (error as { code?: string }).code ?? 'UNEXPECTED', message: error instanceof Error ? error.message : String(error) };
      }
    });
    const readyMs = Date.now() - started;
    if (!ready.ok) throw createError('UNEXPECTED', `the widget did not become ready: [${ready.code}] ${ready.message}`);
    // What the widget imports right after ready (the model probe of auto mode) is still before the
    // first question: the snapshot waits until nothing new has been fetched for QUIET_MS.
    await untilQuiet(() => served.length);
    const beforeReady = served.slice();
    let question: JsWeightReport['question'] = null;
    if (options.question) {
      const answer = await page.evaluate(async (q) => {
        const a = await document.querySelector('harel-chat')!.ask(q);
        return { refused: a.refused, searchMode: a.searchMode };
      }, options.question);
      const files = served.slice(beforeReady.length);
      question = { files, totals: totals(files), ...answer };
    }
    let asked: AskedTimings | null = null;
    if (options.ask?.length) {
      // One evaluate for all: a round trip per question would add the driver's time to nothing measured.
      const runs = await page.evaluate(async (qs) => {
        const el = document.querySelector('harel-chat')!;
        const out: ({ search: number; total: number; mode: string } | null)[] = [];
        for (const q of qs) {
          await el.clear();
          try {
            const a = await el.ask(q);
            out.push({ search: a.timings.search, total: a.timings.total, mode: a.searchMode });
          } catch {
            out.push(null);
          }
        }
        return out;
      }, options.ask);
      const ok = runs.filter((r) => r !== null);
      asked = {
        questions: ok.length,
        failed: runs.length - ok.length,
        searchMode: [...new Set(ok.map((r) => r.mode))].join(', '),
        search: percentiles(ok.map((r) => r.search)),
        total: percentiles(ok.map((r) => r.total)),
      };
    }
    await context.close();
    return { layout, pageUrl, indexUrl, ready: ready.info, readyMs, beforeReady: { files: beforeReady, totals: totals(beforeReady) }, question, asked };
  } finally {
    await browser.close();
    await server.close();
    if (pageDir) rmSync(pageDir, { recursive: true, force: true });
  }
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`;

export function formatJsWeight(report: JsWeightReport): string {
  const lines: string[] = [];
  const table = (files: readonly FetchedFile[], sum: WeightTotals) => {
    const width = Math.max(4, ...files.map((f) => f.path.length));
    lines.push(`  ${'file'.padEnd(width)}  ${'bytes'.padStart(11)}  ${'gzip'.padStart(10)}`);
    for (const f of files) lines.push(`  ${f.path.padEnd(width)}  ${kb(f.bytes).padStart(11)}  ${kb(f.gzipBytes).padStart(10)}`);
    lines.push(
      `  ${'total'.padEnd(width)}  ${kb(sum.bytes).padStart(11)}  ${kb(sum.gzipBytes).padStart(10)}   (JavaScript ${kb(sum.js.gzipBytes)}, wasm ${kb(sum.wasm.gzipBytes)} gzipped; ${sum.files} files)`,
    );
  };
  const r = report.ready;
  lines.push(`${report.layout} ${report.pageUrl}`);
  lines.push(`index ${report.indexUrl}: build ${r.buildId}, ${r.chunkCount} chunks, search ${r.searchMode}${r.embedderError ? ` (embedder: ${r.embedderError})` : ''}, ready in ${report.readyMs} ms`);
  lines.push('fetched before the first question (KB = 1,000 bytes; gzip level 6):');
  table(report.beforeReady.files, report.beforeReady.totals);
  if (report.question) {
    lines.push(`fetched while answering the question (${report.question.refused ? 'refused' : 'answered'}, ${report.question.searchMode}):`);
    if (report.question.files.length) table(report.question.files, report.question.totals);
    else lines.push('  nothing');
  }
  const a = report.asked;
  if (a) {
    const f = (t: { p50: number; p95: number; max: number }) => `p50 ${t.p50.toFixed(1)} / p95 ${t.p95.toFixed(1)} / max ${t.max.toFixed(1)} ms`;
    lines.push(`${a.questions} questions through el.ask() (${a.searchMode}${a.failed ? `, ${a.failed} failed` : ''}): search ${f(a.search)}; whole answer ${f(a.total)}`);
  }
  return lines.join('\n');
}

const USAGE = `usage: npx tsx builder/bench/js-weight.ts <dir> --index <folder|url> [options]

The JavaScript and wasm a page fetches before its first question, measured in Chromium.

  <dir>                 a widget folder (npm run build:widget: dist/widget) or a demo site (npm run build: dist)
  --index <folder|url>  the index: a folder the builder wrote (served at /harel-index/) or a manifest URL
  --model-base <f|url>  the embedder's folder (served at /harel-models/) or URL, for an index with vectors
  --question <text>     ask it once ready, and list what answering it fetched
  --ask <file>          then ask every question of a question file (Harel format), each in a fresh
                        conversation, and give the search time inside el.ask() (answer.timings.search)
  --service-worker      let the demo's service worker install and count what it precaches
  --json                print the report as JSON
  --help                this text

Example: npx tsx builder/bench/js-weight.ts dist/widget --index site/harel-index --question "השתתפות עצמית"
`;

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      index: { type: 'string' },
      'model-base': { type: 'string' },
      question: { type: 'string' },
      ask: { type: 'string' },
      'service-worker': { type: 'boolean' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (positionals.length !== 1 || !values.index) {
    process.stderr.write(USAGE);
    process.exitCode = 2;
    return;
  }
  const report = await measureJsWeight({
    dir: positionals[0],
    index: values.index,
    modelBase: values['model-base'],
    question: values.question,
    ask: values.ask ? (await loadQuestions(values.ask)).map((q) => q.question) : undefined,
    serviceWorker: values['service-worker'],
  });
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatJsWeight(report)}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === resolve(process.argv[1])) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(isHarelError(error) ? `error [${error.code}]: ${error.message}\n` : `${error instanceof Error ? error.stack : String(error)}\n`);
    process.exitCode = 1;
  });
}
