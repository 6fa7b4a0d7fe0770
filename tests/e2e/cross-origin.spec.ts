/**
 * The widget loaded from another origin, as from a CDN: a page on http://127.0.0.1:<B> with a
 * strict Content-Security-Policy loads `harel-chat.js`, the index and the self-hosted test
 * embedder from http://localhost:<A> (the preview server, which sends CORS headers). The workers
 * cannot start from A's URL directly, so the widget starts them through a same-origin blob:
 * module (widget/assets.ts); the chunks, onnxruntime's runtime and the models must still come
 * from A, and nothing may go anywhere else. The CSP is the one the README documents, measured here:
 * each directive removed in turn breaks the widget (or its hybrid search). Also with the index and
 * model-base on the page's origin B, given as paths: the worker (a blob: URL) gets them absolute
 * from the page, and hybrid search still needs A in connect-src for onnxruntime's runtime.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildWidgetBundle } from '../support/build-widget.ts';
import { expect, test, type Page } from '@playwright/test';
import { FIXTURE_EMBEDDER } from '../../builder/embed/defaults.ts';
import { DEMO_PATHS } from '../../demo/scripts/prepare-demo.ts';
import { startStaticServer } from '../../tools/static-server.ts';
import { ORT_WASM_FILES } from '../../widget/embed/model-location.ts';

type Started = Awaited<ReturnType<typeof startStaticServer>>;

let work = '';
let widgetHost: Started;
let page2: Started;
let csp = '';
/** Where the page's element finds its index and models: by default all on the widget's origin. */
let place: { index: string; modelBase: string } | null = null;
const servedByA: string[] = [];
const servedByB: string[] = [];

/** The README's policy for a page that loads the widget from `widget` (an origin). */
const crossOriginCsp = (widget: string) => `default-src 'self'; script-src 'self' ${widget} 'wasm-unsafe-eval' blob:; connect-src 'self' ${widget}`;

const pageHtml = (a: string, { index, modelBase } = { index: `${a}/index/manifest.json`, modelBase: `${a}/models/` }) => `<!doctype html>
<html lang="he" dir="rtl"><head><meta charset="utf-8"><title>cross-origin</title>
<script type="module" src="${a}/widget/harel-chat.js"></script></head>
<body><harel-chat index="${index}" model-base="${modelBase}" mode="extractive"></harel-chat></body></html>`;

test.beforeAll(async () => {
  test.setTimeout(60_000);
  work = mkdtempSync(join(tmpdir(), 'harel-cross-origin-'));
  await buildWidgetBundle(join(work, 'widget'));
  cpSync(DEMO_PATHS.index, join(work, 'index'), { recursive: true });
  cpSync(join(DEMO_PATHS.modelDir, FIXTURE_EMBEDDER), join(work, 'models', FIXTURE_EMBEDDER), { recursive: true });
  widgetHost = await startStaticServer({ root: work, host: 'localhost', onRequest: (path) => servedByA.push(path) });
  page2 = await startStaticServer({
    root: work,
    host: '127.0.0.1',
    onRequest: (path) => servedByB.push(path),
    handle: (path, res) => {
      if (path !== '/') return false;
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.setHeader('Content-Security-Policy', csp);
      res.end(pageHtml(widgetHost.origin, place ?? undefined));
      return true;
    },
  });
});

test.afterAll(async () => {
  await widgetHost?.close();
  await page2?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

async function open(page: Page, policy: string, where: typeof place = null) {
  csp = policy;
  place = where;
  const outside: string[] = [];
  const violations: string[] = [];
  page.context().on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${widgetHost.origin}/`) && !url.startsWith(`${page2.origin}/`) && !/^(data|blob):/.test(url)) outside.push(url);
  });
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) violations.push(message.text());
  });
  await page.goto(`${page2.origin}/`);
  const ready = await page.evaluate(async () => {
    await customElements.whenDefined('harel-chat');
    try {
      // Once search is settled: the index answers first (BM25), the query model loads after it.
      const info = await document.querySelector('harel-chat')!.searchReady;
      return { searchMode: info.searchMode, embedderError: info.embedderError, error: null };
    } catch (error) {
      return { searchMode: null, embedderError: null, error: String(error) };
    }
  });
  return { ready, outside, violations };
}

test('a page on a second origin with a strict CSP loads the widget from the first and answers, hybrid', async ({ page }) => {
  servedByA.length = 0;
  const { ready, outside, violations } = await open(page, crossOriginCsp(widgetHost.origin));
  expect(ready).toEqual({ searchMode: 'hybrid', embedderError: null, error: null });
  const answer = await page.evaluate(() => document.querySelector('harel-chat')!.ask('כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?'));
  expect(answer.refused).toBe(false);
  expect(answer.citations.some((c) => c.file.startsWith('car/'))).toBe(true);
  // The worker's relative URLs resolved against the widget's origin, not the page's.
  expect(servedByA.some((p) => /^\/widget\/search-worker-.+\.js$/.test(p))).toBe(true);
  expect(servedByA).toContain(`/widget/ort/${ORT_WASM_FILES.wasm}`);
  // The test index is embedded with the test embedder's fp32 file (manifest embedder.dtype), which the widget loads too.
  expect(servedByA).toContain(`/models/${FIXTURE_EMBEDDER}/onnx/model.onnx`);
  expect(outside).toEqual([]);
  expect(violations).toEqual([]);
});

test('every part of that policy is needed: without it the widget fails or loses hybrid search', async ({ browser }) => {
  test.setTimeout(90_000);
  const a = widgetHost.origin;
  const cases: [string, string, RegExp][] = [
    // The blob: shim that starts the workers (worker-src falls back to script-src).
    ['no blob:', `default-src 'self'; script-src 'self' ${a} 'wasm-unsafe-eval'; connect-src 'self' ${a}`, /search worker failed/],
    // An explicit worker-src must name the widget's origin too: the shim's import is a worker load.
    ['worker-src blob: alone', `default-src 'self'; script-src 'self' ${a} 'wasm-unsafe-eval' blob:; connect-src 'self' ${a}; worker-src blob:`, /search worker failed/],
    ['no wasm-unsafe-eval', `default-src 'self'; script-src 'self' ${a} blob:; connect-src 'self' ${a}`, /embedder.*could not be loaded/],
    ['no connect-src', `default-src 'self'; script-src 'self' ${a} 'wasm-unsafe-eval' blob:`, /Could not download index file manifest\.json/],
  ];
  for (const [name, policy, expected] of cases) {
    const context = await browser.newContext();
    const { ready } = await open(await context.newPage(), policy);
    expect(`${ready.error ?? ready.embedderError}`, name).toMatch(expected);
    await context.close();
  }
});

test("index and model-base on the page's origin, given as paths, with the widget on another: still hybrid", async ({ page }) => {
  // The worker runs from a blob: URL, which no path resolves against: the page resolves every URL
  // it posts to the worker against its own address, and the models load from the page's origin.
  servedByA.length = 0;
  servedByB.length = 0;
  const { ready, outside, violations } = await open(page, crossOriginCsp(widgetHost.origin), { index: '/index/manifest.json', modelBase: '/models/' });
  expect(ready).toEqual({ searchMode: 'hybrid', embedderError: null, error: null });
  expect(servedByB).toContain('/index/manifest.json');
  expect(servedByB).toContain(`/models/${FIXTURE_EMBEDDER}/tokenizer.json`);
  expect(servedByB).toContain(`/models/${FIXTURE_EMBEDDER}/onnx/model.onnx`);
  expect(servedByA.filter((p) => p.startsWith('/models/') || p.startsWith('/index/'))).toEqual([]);
  // onnxruntime's runtime still comes from beside the bundle.
  expect(servedByA).toContain(`/widget/ort/${ORT_WASM_FILES.wasm}`);
  const answer = await page.evaluate(() => document.querySelector('harel-chat')!.ask('כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?'));
  expect(answer.searchMode).toBe('hybrid');
  expect(answer.citations.some((c) => c.file.startsWith('car/'))).toBe(true);
  expect(outside).toEqual([]);
  expect(violations).toEqual([]);
});

test("with index and models on the page's origin, connect-src still needs the widget's origin: onnxruntime's runtime comes from there", async ({ page }) => {
  const a = widgetHost.origin;
  const { ready } = await open(page, `default-src 'self'; script-src 'self' ${a} 'wasm-unsafe-eval' blob:`, { index: '/index/manifest.json', modelBase: '/models/' });
  // The index still loads (the page's origin), but the embedder cannot fetch its wasm: BM25 only.
  expect(ready.error).toBeNull();
  expect(ready.searchMode).toBe('bm25');
  expect(ready.embedderError).toContain(`${a}/widget/ort/${ORT_WASM_FILES.wasm}`);
});
