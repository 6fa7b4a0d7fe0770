/**
 * The index store and the search worker in Chromium, on demo/dev/store-check.html: IndexedDB
 * caching (a reload downloads no index file), integrity rejection with the old build kept in use,
 * hybrid search with the test embedder served by the app, BM25-only when the embedder is missing,
 * and no request leaving localhost.
 */
import { expect, test, type Page, type Request } from '@playwright/test';
import type { StoreCheck } from '../../demo/dev/store-check.ts';

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1']);
const requests: string[] = [];

test.beforeEach(async ({ context }) => {
  requests.length = 0;
  context.on('request', (r: Request) => requests.push(r.url()));
});

test.afterEach(() => {
  // (e) Nothing leaves the machine: not the index, not the model, not the wasm runtime.
  const outside = requests.filter((u) => /^https?:/.test(u) && !LOCAL_HOSTS.has(new URL(u).hostname));
  expect(outside).toEqual([]);
});

async function open(page: Page, query = '') {
  await page.goto(`/dev/store-check.html${query}`);
  return page.evaluate(async () => {
    const check = (window as unknown as { storeCheck: StoreCheck }).storeCheck;
    return { outcome: await check.ready, progress: check.progress };
  });
}

async function info(page: Page, query = '') {
  const { outcome, progress } = await open(page, query);
  if ('error' in outcome) throw new Error(`load failed: [${outcome.error.code}] ${outcome.error.message}`);
  return { ...outcome.info, progress };
}

const search = (page: Page, query: string) =>
  page.evaluate((q) => (window as unknown as { storeCheck: StoreCheck }).storeCheck.search(q), query);

const indexFiles = () => requests.filter((u) => new URL(u).pathname.startsWith('/index/')).map((u) => new URL(u).pathname);

test('(a) downloads and verifies on first load, then reads the index from IndexedDB', async ({ page }) => {
  const first = await info(page);
  expect(first.fromCache).toBe(false);
  expect(first.storageWarning).toBeNull();
  expect(first.indexError).toBeNull();
  expect(first.chunkCount).toBeGreaterThan(0);
  const steps = new Set(first.progress.map((p) => p.step));
  expect([...steps]).toEqual(expect.arrayContaining(['download', 'verify', 'store', 'load']));
  const downloads = first.progress.filter((p) => p.step === 'download');
  expect(downloads.at(-1)!.done).toBe(downloads.at(-1)!.total);
  expect(indexFiles()).toEqual(expect.arrayContaining(['/index/manifest.json', '/index/chunks.bin.gz', '/index/bm25.bin.gz']));

  requests.length = 0;
  const again = await info(page);
  expect(again.fromCache).toBe(true);
  expect(again.buildId).toBe(first.buildId);
  // The manifest is always asked for (is there a new build?); nothing else of the index is.
  expect(indexFiles()).toEqual(['/index/manifest.json']);
  expect(again.progress.some((p) => p.step === 'download')).toBe(false);
  const { passages } = await search(page, 'מה ההשתתפות העצמית בביטוח הרכב?');
  expect(passages[0].file).toMatch(/^car\//);
});

test('(b) rejects a tampered new build with INDEX_INTEGRITY and keeps answering from the stored one', async ({ page }) => {
  const original = await info(page);
  await page.route('**/index/manifest.json', async (route) => {
    const response = await route.fetch();
    const manifest = (await response.json()) as { buildId: string };
    await route.fulfill({ response, json: { ...manifest, buildId: 'tampered-build' } });
  });
  await page.route('**/index/chunks.bin.gz', async (route) => {
    const response = await route.fetch();
    const body = Buffer.from(await response.body());
    body[body.length - 10] ^= 0xff;
    await route.fulfill({ response, body });
  });
  const after = await info(page);
  expect(after.indexError?.code).toBe('INDEX_INTEGRITY');
  expect(after.indexError?.message).toContain('chunks.bin.gz');
  expect(after.indexError?.message).toContain(original.buildId);
  expect(after.buildId).toBe(original.buildId);
  expect(after.fromCache).toBe(true);
  const { passages } = await search(page, 'how many days do I have to report a home insurance claim');
  expect(passages.length).toBeGreaterThan(0);

  // The rejected build never replaced the good one: without tampering it is still there.
  await page.unrouteAll();
  requests.length = 0;
  const restored = await info(page);
  expect(restored.fromCache).toBe(true);
  expect(restored.indexError).toBeNull();
  expect(indexFiles()).toEqual(['/index/manifest.json']);
});

test('(b2) with no build stored, a tampered file fails the load with INDEX_INTEGRITY', async ({ page }) => {
  await page.route('**/index/bm25.bin.gz', async (route) => {
    const response = await route.fetch();
    const body = Buffer.from(await response.body());
    await route.fulfill({ response, body: body.subarray(0, body.length - 100) });
  });
  const { outcome } = await open(page);
  expect('error' in outcome && outcome.error.code).toBe('INDEX_INTEGRITY');
});

test('(b3) offline: when the manifest cannot be fetched, the stored build is used', async ({ page }) => {
  const original = await info(page);
  await page.route('**/index/**', (route) => route.abort('internetdisconnected'));
  const offline = await info(page);
  expect(offline.buildId).toBe(original.buildId);
  expect(offline.fromCache).toBe(true);
  expect(offline.indexError?.code).toBe('INDEX_DOWNLOAD_FAILED');
});

test('(c) hybrid search with the test embedder served by the app', async ({ page }) => {
  const loaded = await info(page);
  expect(loaded.embedder?.id).toBe('fixture/tiny-embedder');
  expect(loaded.embedderError).toBeNull();
  expect(loaded.searchMode).toBe('hybrid');
  // Chromium runs here with --enable-unsafe-webgpu: a software adapter, so the WebGPU path is taken.
  expect(loaded.embedderDevice).toBe('webgpu');
  const response = await search(page, 'what does travel insurance cover for lost luggage');
  expect(response.result.mode).toBe('hybrid');
  expect(response.passages.some((p) => p.vector !== null)).toBe(true);
  expect(response.passages[0].context.length).toBeGreaterThanOrEqual(response.passages[0].text.length);
  const paths = requests.map((u) => new URL(u).pathname);
  expect(paths).toContain('/models/fixture/tiny-embedder/tokenizer.json');
  expect(paths.some((p) => p.startsWith('/ort/ort-wasm-simd-threaded'))).toBe(true);
});

test('(c2) a cross-origin model-base loads through the remote host template', async ({ page, baseURL }) => {
  const port = new URL(baseURL!).port;
  const loaded = await info(page, `?modelBase=${encodeURIComponent(`http://127.0.0.1:${port}/models/`)}`);
  expect(loaded.embedderError).toBeNull();
  expect(loaded.searchMode).toBe('hybrid');
  expect(requests).toContain(`http://127.0.0.1:${port}/models/fixture/tiny-embedder/tokenizer.json`);
});

test('(d) with the embedder missing, search runs BM25-only and says why', async ({ page }) => {
  const loaded = await info(page, '?embedder=fixture/no-such-model');
  expect(loaded.searchMode).toBe('bm25');
  expect(loaded.embedderError).toContain('no-such-model');
  const response = await search(page, 'מה ההשתתפות העצמית בביטוח הרכב?');
  expect(response.result.mode).toBe('bm25');
  expect(response.passages.length).toBeGreaterThan(0);
});
