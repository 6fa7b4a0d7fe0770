/**
 * The widget as a site gets it: `npm run build:widget`'s folder, loaded by a plain HTML page from
 * a plain static server (not Vite), under a strict Content-Security-Policy. The bundle sits on a
 * nested path, so its chunks, workers and onnxruntime's wasm must be found relative to the bundle,
 * and the test embedder is self-hosted through `model-base`: search must come up hybrid with no
 * request leaving the site. With a BM25-only index, the embedder's code (transformers.js and
 * onnxruntime-web, a lazy chunk of the search worker) and its wasm must never be fetched.
 */
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, resolve, sep } from 'node:path';
import { buildWidgetBundle } from '../support/build-widget.ts';
import { expect, test, type Page } from '@playwright/test';
import { buildIndex } from '../../builder/pipeline/build-index.ts';
import { measureJsWeight } from '../../builder/bench/js-weight.ts';
import { DEMO_PATHS, demoBuildOptions } from '../../demo/scripts/prepare-demo.ts';
import { ORT_WASM_FILES } from '../../widget/embed/model-location.ts';

/**
 * The README's strictest policy, sent on every response: the workers' scripts carry it too, so
 * their wasm needs 'wasm-unsafe-eval'. No blob: on the widget's own origin: with transformers.js's
 * wasm cache off (widget/embed/query-embedder.ts), onnxruntime's loader is imported from its URL,
 * not from a blob: copy (with the cache on, this policy left search BM25-only: "Failed to fetch
 * dynamically imported module: blob:…").
 */
const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'";

const BUNDLE_PATH = '/static/harel-chat/';
const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

const page = (attributes: string) => `<!doctype html>
<html lang="he" dir="rtl">
<head><meta charset="utf-8"><title>bundle test</title>
<script type="module" src="${BUNDLE_PATH}harel-chat.js"></script></head>
<body><harel-chat ${attributes}></harel-chat></body>
</html>`;
const PAGES: Record<string, string> = {
  '/': page('index="/index/manifest.json" model-base="/models/" mode="extractive"'),
  // No model-base either: nothing on this page may go looking for an embedder.
  '/bm25.html': page('index="/index-bm25/manifest.json" mode="extractive"'),
};

const QUESTION = 'כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?';

let outDir = '';
let bm25Dir = '';
let server: Server;
let origin = '';
const served: string[] = [];
/** Bundle files the server answers 404 for, as a site offline before they were ever cached would. */
let unreachable: RegExp | null = null;
/** The bundle's files that hold the embedder's runtime (transformers.js, onnxruntime-web). */
let embedderChunks: string[] = [];

/** `/prefix/…` → a file under `folder`, nothing outside it. */
function mount(prefix: string, folder: string) {
  return (path: string): string | null => {
    if (!path.startsWith(prefix)) return null;
    const dir = resolve(folder);
    const file = resolve(join(dir, path.slice(prefix.length)));
    return file.startsWith(dir + sep) && existsSync(file) && statSync(file).isFile() ? file : null;
  };
}

test.beforeAll(async () => {
  test.setTimeout(60_000);
  outDir = mkdtempSync(join(tmpdir(), 'harel-widget-'));
  await buildWidgetBundle(outDir);
  // Found by what they contain, not by name: onnxruntime's API, which transformers.js calls too.
  embedderChunks = readdirSync(outDir).filter((f) => f.endsWith('.js') && readFileSync(join(outDir, f), 'utf8').includes('InferenceSession'));
  bm25Dir = mkdtempSync(join(tmpdir(), 'harel-bm25-index-'));
  await buildIndex({ ...demoBuildOptions([DEMO_PATHS.corpus], bm25Dir), embed: false });
  const mounts = [mount(BUNDLE_PATH, outDir), mount('/index/', 'demo/.generated/index'), mount('/index-bm25/', bm25Dir), mount('/models/', 'tests/fixtures/.generated')];
  server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    served.push(path);
    res.setHeader('Content-Security-Policy', CSP);
    if (PAGES[path]) {
      res.setHeader('Content-Type', TYPES['.html']);
      res.end(PAGES[path]);
      return;
    }
    const file = unreachable?.test(path) ? null : mounts.map((m) => m(path)).find(Boolean);
    if (!file) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('Content-Type', TYPES[extname(file)] ?? 'application/octet-stream');
    res.setHeader('Content-Length', statSync(file).size);
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  // A failed beforeAll leaves no server, and close() on nothing would never call back.
  if (server) await new Promise((done) => server.close(done));
  if (outDir) rmSync(outDir, { recursive: true, force: true });
  if (bm25Dir) rmSync(bm25Dir, { recursive: true, force: true });
});

test.beforeEach(() => {
  served.length = 0;
  unreachable = null;
});

/** Every URL the page and its workers ask for, as the browser reports them. */
function watchRequests(p: Page): string[] {
  const urls: string[] = [];
  p.context().on('request', (request) => urls.push(request.url()));
  return urls;
}

test('the built bundle answers from a static page, hybrid, under a strict CSP, nothing leaving the site', async ({ page }) => {
  expect(embedderChunks.length).toBeGreaterThan(0);
  expect(embedderChunks.some((f) => f === 'harel-chat.js' || f.startsWith('search-worker-'))).toBe(false);
  const outside: string[] = [];
  const violations: string[] = [];
  page.context().on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${origin}/`) && !/^(data|blob):/.test(url)) outside.push(url);
  });
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });

  await page.goto(`${origin}/`);
  const info = await page.evaluate(async () => {
    const el = document.querySelector('harel-chat')!;
    await customElements.whenDefined('harel-chat');
    // Once search is settled: the index answers first (BM25), the query model loads after it.
    const ready = await el.searchReady;
    return { searchMode: ready.searchMode, embedderError: ready.embedderError, chunkCount: ready.chunkCount };
  });
  expect(info.embedderError).toBeNull();
  expect(info.searchMode).toBe('hybrid');
  expect(info.chunkCount).toBeGreaterThan(0);

  const answer = await page.evaluate(() => document.querySelector('harel-chat')!.ask('כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?'));
  expect(answer.refused).toBe(false);
  expect(answer.citations.length).toBeGreaterThan(0);
  expect(answer.citations.some((c) => c.file.startsWith('car/'))).toBe(true);
  await expect(page.locator('harel-chat [part~="search-badge"]')).toHaveAttribute('data-search', 'hybrid');

  // The runtime came from beside the bundle, the embedder from model-base, the workers as chunks.
  for (const chunk of embedderChunks) expect(served).toContain(`${BUNDLE_PATH}${chunk}`);
  expect(served).toContain(`${BUNDLE_PATH}ort/${ORT_WASM_FILES.wasm}`);
  // The test index is embedded with the test embedder's fp32 file (manifest embedder.dtype), which the widget loads too.
  expect(served).toContain('/models/fixture/tiny-embedder/onnx/model.onnx');
  expect(served.some((p) => p.startsWith(`${BUNDLE_PATH}search-worker-`))).toBe(true);
  expect(outside).toEqual([]);
  expect(violations).toEqual([]);
});

test('a question-model chunk that cannot be fetched costs hybrid search, not the index: BM25 answers and says why', async ({ page }) => {
  unreachable = /\/query-model-load-[\w-]+\.js$/;
  await page.goto(`${origin}/`);
  const info = await page.evaluate(async () => {
    await customElements.whenDefined('harel-chat');
    const ready = await document.querySelector('harel-chat')!.searchReady;
    return { searchMode: ready.searchMode, embedderError: ready.embedderError, chunkCount: ready.chunkCount };
  });
  expect(served.some((p) => /\/query-model-load-/.test(p))).toBe(true);
  expect(info.searchMode).toBe('bm25');
  expect(info.embedderError).toMatch(/\S/);
  expect(info.chunkCount).toBeGreaterThan(0);
  const answer = await page.evaluate((q) => document.querySelector('harel-chat')!.ask(q), QUESTION);
  expect(answer.refused).toBe(false);
  expect(answer.searchMode).toBe('bm25');
  expect(answer.citations.some((c) => c.file.startsWith('car/'))).toBe(true);
});

test('a BM25-only index never fetches the embedder: no transformers.js, onnxruntime or wasm, before or after a question', async ({ page }) => {
  const requested = watchRequests(page);
  const embedderFiles = (urls: string[]) => urls.filter((u) => embedderChunks.some((chunk) => u.endsWith(`/${chunk}`)) || /transformers|onnxruntime|ort-wasm|\.wasm$|\.onnx$|\/models\//i.test(u));

  await page.goto(`${origin}/bm25.html`);
  const info = await page.evaluate(async () => {
    await customElements.whenDefined('harel-chat');
    const ready = await document.querySelector('harel-chat')!.ready;
    return { searchMode: ready.searchMode, embedder: ready.embedder, embedderError: ready.embedderError };
  });
  expect(info).toEqual({ searchMode: 'bm25', embedder: null, embedderError: null });
  // The search worker did start (so its imports were resolved) and took none of them.
  expect(served.some((p) => p.startsWith(`${BUNDLE_PATH}search-worker-`))).toBe(true);
  expect(embedderFiles(served)).toEqual([]);
  expect(embedderFiles(requested)).toEqual([]);

  const answer = await page.evaluate((q) => document.querySelector('harel-chat')!.ask(q), QUESTION);
  expect(answer.refused).toBe(false);
  expect(answer.searchMode).toBe('bm25');
  expect(answer.citations.some((c) => c.file.startsWith('car/'))).toBe(true);
  expect(embedderFiles(served)).toEqual([]);
  expect(embedderFiles(requested)).toEqual([]);
});

test('js-weight bench: what a BM25-only page fetches before its first question, within the 120 KB budget', async () => {
  test.setTimeout(120_000);
  const report = await measureJsWeight({ dir: outDir, index: bm25Dir, question: QUESTION });
  expect(report.layout).toBe('widget');
  expect(report.ready.searchMode).toBe('bm25');
  const files = report.beforeReady.files.map((f) => f.path.slice('/harel-chat/'.length));
  expect(files).toContain('harel-chat.js');
  expect(files.some((f) => f.startsWith('search-worker-'))).toBe(true);
  expect(files.filter((f) => embedderChunks.includes(f))).toEqual([]);
  expect(report.beforeReady.totals.wasm.bytes).toBe(0);
  for (const f of report.beforeReady.files) {
    expect(f.bytes).toBe(statSync(join(outDir, f.path.slice('/harel-chat/'.length))).size);
    expect(f.gzipBytes).toBeLessThan(f.bytes);
  }
  expect(report.beforeReady.totals.gzipBytes).toBe(report.beforeReady.files.reduce((s, f) => s + f.gzipBytes, 0));
  // The answer loop (widget/session/answer-loop.ts) and the conversation's rows (widget/ui/conversation-rows.ts) come with the first question, and nothing else.
  expect(report.question?.files.map((f) => f.path).filter((path) => !/\/(answer-loop|extractive|conversation-rows|harel-chat-shared)-[\w-]+\.js$/.test(path))).toEqual([]);
  expect(report.question?.files.some((f) => /\/conversation-rows-[\w-]+\.js$/.test(f.path))).toBe(true);
  // The JavaScript budget: at most 120 KB of gzipped JavaScript before the first question of a BM25-only index.
  expect(report.beforeReady.totals.gzipBytes).toBeLessThanOrEqual(120_000);
});
