/**
 * The demo as an installable, offline app, against `npm run build`'s output served by the
 * preview server (demo/scripts/preview.ts) on a port of its own — never the dev server:
 * installability (manifest, icons, service worker in control), an offline start that answers with
 * citations, one stored copy of each file (demo/sw.ts says who owns what), an app whose index has
 * no vectors never downloading the embedder's runtime, a new build published while the page is
 * open (update prompt, then the new index after the reload), a storage quota too small for the
 * index (in-memory fallback with a clear warning), and no request leaving the server's origin.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import { buildIndex } from '../../builder/pipeline/build-index.ts';
import { buildSite, publishIndex, writeServiceWorker } from '../../demo/scripts/build-site.ts';
import { DEMO_PATHS, demoBuildOptions } from '../../demo/scripts/prepare-demo.ts';
import { policyPdf } from '../fixtures/device-pdfs/device-pdfs.ts';
import { startStaticServer } from '../../tools/static-server.ts';

const QUESTION = 'כמה השתתפות עצמית אשלם על החלפת שמשה קדמית?';

let work = '';
let siteA = '';
let siteB = '';
/** The same app publishing a BM25-only index (no vectors, no embedder). */
let siteBm25 = '';
let served = '';
let preview: Awaited<ReturnType<typeof startStaticServer>>;
let newBuildId = '';
/** Every path the preview server was asked for, by the page, its workers or the service worker. */
const requested: string[] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  work = mkdtempSync(join(tmpdir(), 'harel-pwa-'));
  // The tests' app: their index with the tiny TEST embedder (tests/e2e/real-e5.spec.ts runs the real E5's).
  siteA = await buildSite({ outDir: join(work, 'a'), index: 'test', quiet: true });
  // Build B: the same app with a new index build (one more document), as a site publishes it.
  const extra = join(work, 'extra', 'car');
  mkdirSync(extra, { recursive: true });
  writeFileSync(join(extra, 'roadside.md'), '# שירותי דרך\n\nגרירה חינם עד 50 ק"מ מכל מקום בארץ, 24 שעות ביממה, פעם אחת בשנת ביטוח.\n');
  const summary = await buildIndex(demoBuildOptions([DEMO_PATHS.corpus, join(work, 'extra')], join(work, 'index-b')));
  newBuildId = summary.manifest.buildId;
  siteB = join(work, 'b');
  cpSync(siteA, siteB, { recursive: true });
  publishIndex(siteB, join(work, 'index-b'));
  await writeServiceWorker(siteB, { quiet: true });
  await buildIndex({ ...demoBuildOptions([DEMO_PATHS.corpus], join(work, 'index-bm25')), embed: false });
  siteBm25 = join(work, 'bm25');
  cpSync(siteA, siteBm25, { recursive: true });
  publishIndex(siteBm25, join(work, 'index-bm25'));
  await writeServiceWorker(siteBm25, { quiet: true });
  served = siteA;
  preview = await startStaticServer({ root: () => served, port: 0, host: 'localhost', onRequest: (path) => requested.push(path) });
});

test.afterAll(async () => {
  await preview?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test.beforeEach(() => {
  served = siteA;
  requested.length = 0;
});

/** Every request the context makes must stay on the preview server. */
function watchRequests(context: BrowserContext): string[] {
  const outside: string[] = [];
  context.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${preview.origin}/`) && !/^(data|blob|chrome-extension):/.test(url)) outside.push(url);
  });
  return outside;
}

async function whenControlled(page: Page): Promise<string> {
  // Installing precaches the whole app (onnxruntime's wasm is 14 MB): slow on a loaded 2-core
  // machine, so the wait is long and watches the controller itself rather than one event.
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, undefined, { timeout: 90_000, polling: 200 });
  return page.evaluate(async () => (await navigator.serviceWorker.ready).active!.scriptURL);
}

const readyInfo = (page: Page) =>
  page.evaluate(async () => {
    await customElements.whenDefined('harel-chat');
    // Search settled: the query model is in (hybrid) or not needed (BM25 index).
    const info = await document.querySelector('harel-chat')!.searchReady;
    return { buildId: info.buildId, fromCache: info.fromCache, searchMode: info.searchMode, storageWarning: info.storageWarning };
  });

const ask = (page: Page, question = QUESTION) => page.evaluate((q) => document.querySelector('harel-chat')!.ask(q), question);

/** Every Cache Storage cache of the origin, with the paths it holds (Workbox's revision query dropped). */
const cacheContents = (page: Page) =>
  page.evaluate(async () => {
    const out: Record<string, string[]> = {};
    for (const name of await caches.keys()) out[name] = (await (await caches.open(name)).keys()).map((r) => new URL(r.url).pathname);
    return out;
  });

/** What only the query embedder loads: its lazy chunk, onnxruntime's runtime, the model's files. */
const EMBEDDER_ONLY = /\/assets\/query-embedder-|\/assets\/ort\/|\.wasm$|\.onnx$|^\/models\//;

test('installable: a valid manifest with 192 and 512 icons, a service worker in control', async ({ page, context }) => {
  test.setTimeout(120_000);
  const outside = watchRequests(context);
  await page.goto(`${preview.origin}/`);
  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  expect(href).toBe('/manifest.webmanifest');
  const response = await page.request.get(`${preview.origin}${href}`);
  expect(response.headers()['content-type']).toBe('application/manifest+json');
  const manifest = await response.json();
  expect(manifest).toMatchObject({ start_url: '/', display: 'standalone', lang: 'he', dir: 'rtl' });
  expect(manifest.name.length).toBeGreaterThan(0);
  expect(manifest.short_name.length).toBeGreaterThan(0);
  for (const [size, purpose] of [
    [192, 'any'],
    [512, 'any'],
    [512, 'maskable'],
  ] as const) {
    const icon = manifest.icons.find((i: { sizes: string; purpose: string }) => i.sizes === `${size}x${size}` && i.purpose === purpose);
    expect(icon, `${size} ${purpose} icon`).toBeTruthy();
    const png = await (await page.request.get(`${preview.origin}${icon.src}`)).body();
    // A PNG whose IHDR says the declared size.
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([size, size]);
  }
  expect(await whenControlled(page)).toBe(`${preview.origin}/sw.js`);
  // The precache holds the app shell, the widget's workers and the embedder's lazy chunk (this
  // index has vectors), onnxruntime's runtime and the index's manifest, not its data files
  // (the widget keeps those in IndexedDB).
  const precached = await page.evaluate(async () => {
    const names = await caches.keys();
    const cache = await caches.open(names.find((n) => n.includes('precache'))!);
    return (await cache.keys()).map((r) => new URL(r.url).pathname);
  });
  for (const path of ['/index.html', '/index/manifest.json', '/assets/ort/ort-wasm-simd-threaded.wasm', '/assets/ort/ort-wasm-simd-threaded.mjs']) {
    expect(precached).toContain(path);
  }
  expect(precached.filter((p) => p.startsWith('/index/'))).toEqual(['/index/manifest.json']);
  expect(precached.some((p) => p.startsWith('/assets/search-worker-'))).toBe(true);
  expect(precached.some((p) => p.startsWith('/assets/query-embedder-'))).toBe(true);
  expect(precached.some((p) => p.includes('web-llm') || p.includes('llm-worker'))).toBe(false);
  expect(outside).toEqual([]);
});

test('offline: after one visit the app starts with no network and answers with citations', async ({ page, context }) => {
  test.setTimeout(90_000);
  const outside = watchRequests(context);
  await page.goto(`${preview.origin}/`);
  await whenControlled(page);
  await page.reload();
  expect((await readyInfo(page)).searchMode).toBe('hybrid');
  expect((await ask(page)).citations.length).toBeGreaterThan(0);
  // The embedder's files are cached at runtime by the widget itself (demo/sw.ts says why the
  // service worker keeps no second copy).
  const models = await page.evaluate(async () => (await (await caches.open('transformers-cache')).keys()).map((r) => new URL(r.url).pathname));
  // The test index is embedded with the test embedder's fp32 file (manifest embedder.dtype), which the widget loads too.
  expect(models).toContain('/models/fixture/tiny-embedder/onnx/model.onnx');
  // The widget's status line shows what the origin stores.
  await expect(page.locator('harel-chat [part~="storage"]')).toContainText('אחסון:');

  await context.setOffline(true);
  await page.reload();
  const info = await readyInfo(page);
  expect(info.fromCache).toBe(true);
  expect(info.searchMode).toBe('hybrid');
  const answer = await ask(page);
  expect(answer.refused).toBe(false);
  expect(answer.citations.length).toBeGreaterThan(0);
  expect(answer.citations.some((c) => c.file.startsWith('car/'))).toBe(true);
  await context.setOffline(false);
  expect(outside).toEqual([]);
});

/** A one-page policy for a sailboat (words the demo never uses), as a customer would add it. */
const sailboatPdf = (clause: string): Uint8Array => policyPdf([['Marlin Sailboat Policy', clause]]);

const addPdf = (page: Page, name: string, bytes: Uint8Array) =>
  page.evaluate(
    async ({ name, base64 }) => {
      const file = new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name, { type: 'application/pdf' });
      return (await document.querySelector('harel-chat')!.addDocument(file)).id;
    },
    { name, base64: Buffer.from(bytes).toString('base64') },
  );

test("offline: the customer's own PDF answers after a reload with no network, and one added offline is read too", async ({ page, context }) => {
  test.setTimeout(120_000);
  const outside = watchRequests(context);
  // The precached page is `/` (a query string would be another URL to the service worker).
  await page.goto(`${preview.origin}/`);
  await whenControlled(page);
  await readyInfo(page);
  const online = await addPdf(page, 'marlin.pdf', sailboatPdf('The deductible for hull damage to the sailboat Marlin is 4,750 dollars per claim.'));

  await context.setOffline(true);
  await page.reload();
  await readyInfo(page);
  const answer = await ask(page, 'What is the deductible for hull damage to the sailboat Marlin?');
  expect(answer.citations[0]).toMatchObject({ origin: 'device', deviceDocument: online, page: 1, url: null });
  // The document worker and pdf.js are precached with the app: a PDF is read with no network too.
  const offline = await addPdf(page, 'marlin-mooring.pdf', sailboatPdf('The mooring fee of the sailboat Marlin is 95 dollars a night at any marina.'));
  const mooring = await ask(page, 'What is the mooring fee of the sailboat Marlin?');
  expect(mooring.citations[0]).toMatchObject({ origin: 'device', deviceDocument: offline });
  await page.evaluate(() => document.querySelector('harel-chat')!.removeAllDocuments());
  await context.setOffline(false);
  expect(outside).toEqual([]);
});

test('one copy of each file: after install and a query that embeds, no URL is stored in two caches', async ({ page, context }) => {
  test.setTimeout(120_000);
  const outside = watchRequests(context);
  await page.goto(`${preview.origin}/`);
  await whenControlled(page);
  await page.reload();
  const info = await readyInfo(page);
  expect(info.searchMode).toBe('hybrid');
  // The index came from IndexedDB, its one copy on the device.
  expect(info.fromCache).toBe(true);
  const answer = await ask(page);
  expect(answer.searchMode).toBe('hybrid');
  expect(answer.citations.length).toBeGreaterThan(0);

  const contents = await cacheContents(page);
  const owners = new Map<string, string[]>();
  for (const [name, paths] of Object.entries(contents)) for (const path of paths) owners.set(path, [...(owners.get(path) ?? []), name]);
  const ownersOf = (path: string) => (owners.get(path) ?? []).map((name) => (name.includes('precache') ? 'precache' : name));
  // The one URL in two caches by design (demo/sw.ts): this build's manifest, and the newest seen.
  const twice = [...owners].filter(([path, names]) => names.length > 1 && path !== '/index/manifest.json');
  expect(twice).toEqual([]);
  expect(ownersOf('/index/manifest.json').sort()).toEqual(['harel-index-manifest', 'precache']);
  // onnxruntime's runtime: the precache only.
  expect(ownersOf('/assets/ort/ort-wasm-simd-threaded.wasm')).toEqual(['precache']);
  expect(ownersOf('/assets/ort/ort-wasm-simd-threaded.mjs')).toEqual(['precache']);
  // The embedder's model: the widget's model cache only.
  expect(ownersOf('/models/fixture/tiny-embedder/onnx/model.onnx')).toEqual(['transformers-cache']);
  // The index's data files: in no cache at all.
  expect([...owners.keys()].filter((p) => p.startsWith('/index/') && p !== '/index/manifest.json')).toEqual([]);
  expect(outside).toEqual([]);
});

test('an index without vectors: the app never downloads the embedder, its runtime or any wasm, and still answers offline', async ({ page, context }) => {
  test.setTimeout(120_000);
  served = siteBm25;
  const outside = watchRequests(context);
  await page.goto(`${preview.origin}/`);
  await whenControlled(page);
  await page.reload();
  expect((await readyInfo(page)).searchMode).toBe('bm25');
  const answer = await ask(page);
  expect(answer.refused).toBe(false);
  expect(answer.searchMode).toBe('bm25');
  // Asked of the server by anyone (page, workers, service worker) or stored anywhere: none of it.
  expect(requested.filter((p) => EMBEDDER_ONLY.test(p))).toEqual([]);
  // Whatever its name: no script that holds onnxruntime's API (the embedder's chunk, whatever Vite names it).
  const scripts = [...new Set(requested.filter((p) => p.endsWith('.js') && existsSync(join(siteBm25, p))))];
  expect(scripts.filter((p) => readFileSync(join(siteBm25, p), 'utf8').includes('InferenceSession'))).toEqual([]);
  expect(
    Object.values(await cacheContents(page))
      .flat()
      .filter((p) => EMBEDDER_ONLY.test(p)),
  ).toEqual([]);

  await context.setOffline(true);
  await page.reload();
  const offline = await readyInfo(page);
  expect(offline.fromCache).toBe(true);
  expect((await ask(page)).citations.length).toBeGreaterThan(0);
  await context.setOffline(false);
  expect(requested.filter((p) => EMBEDDER_ONLY.test(p))).toEqual([]);
  expect(outside).toEqual([]);
});

test('update: a new build published while the page is open shows the prompt, and the reload switches to it', async ({ page, context }) => {
  test.setTimeout(90_000);
  const outside = watchRequests(context);
  await page.goto(`${preview.origin}/`);
  await whenControlled(page);
  const before = await readyInfo(page);
  expect(before.buildId).not.toBe(newBuildId);
  await expect(page.locator('#update')).toBeHidden();

  served = siteB;
  await page.evaluate(async () => (await navigator.serviceWorker.getRegistration())!.update());
  await expect(page.locator('#update')).toBeVisible({ timeout: 30_000 });
  await expect(page.locator('#update')).toContainText('גרסה חדשה זמינה');
  await expect(page.locator('#update')).toContainText('A new version is available');
  // Until the reload, the open page keeps answering from the build it loaded.
  expect((await ask(page)).citations.length).toBeGreaterThan(0);

  await Promise.all([page.waitForEvent('load'), page.locator('#update-reload').click()]);
  const after = await readyInfo(page);
  expect(after.buildId).toBe(newBuildId);
  await expect(page.locator('harel-chat [part~="status"]')).toHaveAttribute('data-build', newBuildId);
  const manifestBuild = JSON.parse(readFileSync(join(siteB, 'index', 'manifest.json'), 'utf8')).buildId;
  expect(manifestBuild).toBe(newBuildId);
  const answer = await ask(page, 'האם יש גרירה חינם בביטוח הרכב?');
  expect(answer.citations.some((c) => c.file.includes('roadside'))).toBe(true);
  expect(outside).toEqual([]);
});

test('storage quota too small for the index: kept in memory, a clear warning, and it still answers', async ({ page, context }) => {
  const outside = watchRequests(context);
  // A real QuotaExceededError from IndexedDB (in the search worker, where the index is stored),
  // not a stub: DevTools' per-origin quota override.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: preview.origin, quotaSize: 20_000 });
  await page.goto(`${preview.origin}/`);
  const info = await readyInfo(page);
  expect(info.storageWarning).toContain('Not enough browser storage');
  await expect(page.locator('harel-chat [part~="status"]')).toContainText('Not enough browser storage');
  const answer = await ask(page);
  expect(answer.refused).toBe(false);
  expect(answer.citations.length).toBeGreaterThan(0);
  expect(outside).toEqual([]);
});
