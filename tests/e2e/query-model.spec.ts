/**
 * The query model loads after the index, never before the first answer: the index answers by
 * BM25 as soon as it is loaded, the details say the model is loading (with its bytes), and
 * search turns hybrid once it is in (`searchReady`, `harel-chat:search-ready`). A model that
 * cannot be had — a 404, a truncated file, another file in its place — leaves BM25 answering with
 * the reason in the details, fires no `harel-chat:error` (README "API and events"), and is not
 * kept in transformers.js's cache, so the next visit tries the network again. With the tiny TEST
 * embedder on the tests' server (tests/e2e/real-e5.spec.ts runs the real E5); the model's file is
 * held back or replaced with page.route, so nothing depends on the machine's speed.
 */
import { expect, test, type Page, type Route } from '@playwright/test';
import type { IndexInfo } from '../../widget/search/search-service.ts';

const ONNX = '**/models/fixture/tiny-embedder/onnx/*.onnx';
const QUESTION = 'How soon must I report a home insurance claim?';

/** Holds the model's ONNX file until `release` is called, then answers with `respond`. */
async function holdModel(page: Page, respond: (route: Route) => Promise<void> = (route) => route.continue()): Promise<() => void> {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(ONNX, async (route) => {
    await released;
    await respond(route);
  });
  return release;
}

/** The `harel-chat:search-ready` and `harel-chat:error` events the page hears, from before the element exists. */
async function recordEvents(page: Page): Promise<{ searchReady: unknown[]; errors: unknown[] }> {
  const heard = { searchReady: [] as unknown[], errors: [] as unknown[] };
  await page.exposeFunction('recordSearchReady', (detail: unknown) => heard.searchReady.push(detail));
  await page.exposeFunction('recordError', (detail: unknown) => heard.errors.push(detail));
  await page.addInitScript(() => {
    const w = window as unknown as { recordSearchReady(d: unknown): void; recordError(d: unknown): void };
    addEventListener('harel-chat:search-ready', (e) => w.recordSearchReady((e as CustomEvent).detail));
    addEventListener('harel-chat:error', (e) => w.recordError((e as CustomEvent).detail));
  });
  return heard;
}

const ready = (page: Page) =>
  page.evaluate(async () => {
    await customElements.whenDefined('harel-chat');
    const info = await document.querySelector('harel-chat')!.ready;
    return { searchMode: info.searchMode, embedderStatus: info.embedderStatus };
  });

const searchReady = (page: Page): Promise<IndexInfo> => page.evaluate(() => document.querySelector('harel-chat')!.searchReady);

const ask = (page: Page, question = QUESTION) =>
  page.evaluate(async (q) => {
    const a = await document.querySelector('harel-chat')!.ask(q);
    return { searchMode: a.searchMode, embed: a.timings.embed, citations: a.citations.length, refused: a.refused };
  }, question);

const searchInfo = (page: Page) => page.locator('harel-chat [part~="search-info"]');

test('the index answers by BM25 while the model loads, and search turns hybrid once it is in', async ({ page }) => {
  const events = await recordEvents(page);
  const release = await holdModel(page);
  await page.goto('/?lang=en');
  // Ready while the model's file is still held back: the index does not wait for it.
  expect(await ready(page)).toEqual({ searchMode: 'bm25', embedderStatus: 'loading' });
  await expect(searchInfo(page)).toHaveAttribute('data-embedder', 'loading');
  await expect(searchInfo(page)).toContainText('Search: words only (BM25) while the search model loads…');
  const first = await ask(page);
  expect(first).toMatchObject({ searchMode: 'bm25', embed: 0, refused: false });
  expect(first.citations).toBeGreaterThan(0);
  expect(events.searchReady).toEqual([]);

  release();
  const info = await searchReady(page);
  expect(info).toMatchObject({ searchMode: 'hybrid', embedderStatus: 'ready', embedderError: null });
  expect(['wasm', 'webgpu']).toContain(info.embedderDevice);
  await expect(searchInfo(page)).toHaveAttribute('data-embedder', 'ready');
  // The test fixture is named as one: never passed off as E5.
  await expect(searchInfo(page)).toContainText(`Search: hybrid (fixture/tiny-embedder, a test fixture, not E5, ${info.embedderDevice})`);
  await expect(page.locator('harel-chat [part~="search-badge"]')).toHaveAttribute('data-search', 'hybrid');
  const second = await ask(page);
  expect(second.searchMode).toBe('hybrid');
  expect(second.embed).toBeGreaterThan(0);
  expect(events.searchReady).toEqual([{ searchMode: 'hybrid', embedder: 'fixture/tiny-embedder', queryModel: 'fixture/tiny-embedder', embedderDevice: info.embedderDevice, embedderError: null }]);
  expect(events.errors).toEqual([]);
});

test('questions run on several threads where the page is cross-origin isolated, and on one, still hybrid, where it is not', async ({ page, context }) => {
  // The tests' server sends COOP/COEP, as the demo and the preview server do.
  await page.goto('/?lang=en');
  const isolated = await page.evaluate(() => ({ isolated: crossOriginIsolated, cores: navigator.hardwareConcurrency }));
  expect(isolated.isolated).toBe(true);
  const threads = Math.max(1, Math.min(4, isolated.cores));
  const info = await searchReady(page);
  expect(info).toMatchObject({ searchMode: 'hybrid', embedderThreads: threads });
  await expect(searchInfo(page)).toHaveAttribute('data-threads', String(threads));
  if (threads > 1) await expect(searchInfo(page)).toContainText(`${threads} threads (cross-origin isolated page)`);
  expect((await ask(page)).searchMode).toBe('hybrid');

  // The same page without the two headers, as a host that does not send them serves it.
  const plain = await context.newPage();
  await plain.route(
    (url) => url.pathname === '/',
    async (route) => {
      const response = await route.fetch();
      const headers = { ...response.headers() };
      delete headers['cross-origin-opener-policy'];
      delete headers['cross-origin-embedder-policy'];
      await route.fulfill({ response, headers });
    },
  );
  await plain.goto('/?lang=en');
  expect(await plain.evaluate(() => crossOriginIsolated)).toBe(false);
  expect(await searchReady(plain)).toMatchObject({ searchMode: 'hybrid', embedderThreads: 1 });
  await expect(searchInfo(plain)).toHaveAttribute('data-threads', '1');
  await expect(searchInfo(plain)).toContainText('1 thread: the page is not cross-origin isolated');
  const answer = await ask(plain);
  expect(answer).toMatchObject({ searchMode: 'hybrid', refused: false });
  expect(answer.embed).toBeGreaterThan(0);
});

/** What transformers.js holds of the test embedder in its cache. */
const cachedModelFiles = (page: Page) =>
  page.evaluate(async () => {
    if (!(await caches.has('transformers-cache'))) return [];
    const keys = await (await caches.open('transformers-cache')).keys();
    return keys.map((r) => new URL(r.url).pathname).filter((p) => p.startsWith('/models/fixture/tiny-embedder/'));
  });

const BROKEN: [string, (route: Route) => Promise<void>, RegExp][] = [
  ['a 404', (route) => route.fulfill({ status: 404, body: '' }), /could not be loaded/],
  [
    'a truncated file',
    async (route) => {
      const response = await route.fetch();
      const body = await response.body();
      await route.fulfill({ response, body: body.subarray(0, Math.floor(body.length / 2)) });
    },
    /could not be loaded/,
  ],
  [
    'another file in its place (a web page)',
    (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>Not here</title><p>Page not found</p>' }),
    /could not be loaded/,
  ],
];

for (const [name, respond, reason] of BROKEN) {
  test(`${name} for the model leaves BM25 answering, says why in the details, and is not kept for the next visit`, async ({ page }) => {
    const events = await recordEvents(page);
    const release = await holdModel(page, respond);
    await page.goto('/?lang=en');
    expect((await ready(page)).embedderStatus).toBe('loading');
    release();
    const info = await searchReady(page);
    expect(info).toMatchObject({ searchMode: 'bm25', embedderStatus: 'failed' });
    expect(info.embedderError).toMatch(reason);
    await expect(searchInfo(page)).toHaveAttribute('data-embedder', 'failed');
    await expect(searchInfo(page)).toContainText('Search: words only (BM25) — ');
    await expect(searchInfo(page).locator('.reason')).toContainText('fixture/tiny-embedder');
    const answer = await ask(page);
    expect(answer).toMatchObject({ searchMode: 'bm25', refused: false });
    expect(answer.citations).toBeGreaterThan(0);
    expect(events.searchReady).toEqual([expect.objectContaining({ searchMode: 'bm25', embedder: 'fixture/tiny-embedder', embedderError: info.embedderError })]);
    // Answers still come: the page hears no error (the reason is in searchReady and the details).
    expect(events.errors).toEqual([]);
    expect((await cachedModelFiles(page)).filter((p) => p.endsWith('.onnx'))).toEqual([]);

    // The site serves the right file again: the next visit gets hybrid search.
    await page.unroute(ONNX);
    await page.reload();
    expect(await searchReady(page)).toMatchObject({ searchMode: 'hybrid', embedderStatus: 'ready' });
  });
}
