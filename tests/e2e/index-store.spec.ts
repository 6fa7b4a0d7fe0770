/**
 * The index store and the search worker in Chromium, on demo/dev/store-check.html: IndexedDB
 * caching (a reload downloads no index file), integrity rejection with the old build kept in use,
 * hybrid search with the test embedder served by the app, BM25-only when the embedder is missing,
 * an update too large for the origin's quota that leaves the stored build answering offline, and
 * no request leaving localhost.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page, type Request } from '@playwright/test';
import { buildIndex } from '../../builder/pipeline/build-index.ts';
import { DEMO_PATHS, demoBuildOptions } from '../../demo/scripts/prepare-demo.ts';
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

const search = (page: Page, query: string) => page.evaluate((q) => (window as unknown as { storeCheck: StoreCheck }).storeCheck.search(q), query);

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
  expect(indexFiles()).toEqual(expect.arrayContaining(['/index/manifest.json', '/index/chunks-0.bin.gz', '/index/bm25.bin.gz']));

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
  await page.route('**/index/chunks-0.bin.gz', async (route) => {
    const response = await route.fetch();
    const body = Buffer.from(await response.body());
    body[body.length - 10] ^= 0xff;
    await route.fulfill({ response, body });
  });
  const after = await info(page);
  expect(after.indexError?.code).toBe('INDEX_INTEGRITY');
  expect(after.indexError?.message).toContain('chunks-0.bin.gz');
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
  // Chromium runs here with --enable-unsafe-webgpu, whose adapter is a software one (SwiftShader):
  // queries are embedded on wasm (widget/embed/query-embedder.ts, detectDevice, says why).
  expect(loaded.embedderDevice).toBe('wasm');
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

test('(c3) a stored copy whose vectors went bad answers by BM25 from it and says why, with no index file downloaded again', async ({ page }) => {
  expect((await info(page)).searchMode).toBe('hybrid');
  // Storage gone bad under one file: the vectors, which a stored build reads after it answers.
  await page.evaluate(async () => {
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const request = indexedDB.open('harel-chat');
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
    });
    const store = db.transaction('builds', 'readwrite').objectStore('builds');
    const builds = await new Promise<{ files: { vectors?: Uint8Array } }[]>((resolve) => {
      const all = store.getAll();
      all.onsuccess = () => resolve(all.result);
    });
    for (const build of builds) {
      build.files.vectors![20] ^= 0xff;
      store.put(build);
    }
    await new Promise((resolve) => {
      store.transaction.oncomplete = resolve;
    });
    db.close();
  });
  requests.length = 0;
  const again = await info(page);
  expect(again.fromCache).toBe(true);
  expect(again.indexError).toBeNull();
  expect(again.searchMode).toBe('bm25');
  expect(again.embedderError).toMatch(/vectors\.bin\.gz.*sha256 mismatch/s);
  expect(indexFiles()).toEqual(['/index/manifest.json']);
  const response = await search(page, 'מה ההשתתפות העצמית בביטוח הרכב?');
  expect(response.result.mode).toBe('bm25');
  expect(response.passages[0].file).toMatch(/^car\//);
});

test('(d) with the embedder missing, search runs BM25-only and says why', async ({ page }) => {
  const loaded = await info(page, '?embedder=fixture/no-such-model');
  expect(loaded.searchMode).toBe('bm25');
  expect(loaded.embedderError).toContain('no-such-model');
  const response = await search(page, 'מה ההשתתפות העצמית בביטוח הרכב?');
  expect(response.result.mode).toBe('bm25');
  expect(response.passages.length).toBeGreaterThan(0);
});

test.describe('an update larger than the storage quota', () => {
  let work = '';
  let largeBuild = '';
  let largeBuildId = '';

  test.beforeAll(async () => {
    test.setTimeout(60_000);
    // The demo corpus plus an appendix of about 900 KB of text: a build of about 800 KB compressed,
    // where the demo index is about 70 KB. Deterministic words, so its size does not vary by run.
    work = mkdtempSync(join(tmpdir(), 'harel-quota-'));
    const extra = join(work, 'extra', 'travel');
    mkdirSync(extra, { recursive: true });
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const letters = (n: number) => Array.from({ length: n }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join('');
    const words = Array.from({ length: 4000 }, () => letters(3 + Math.floor(random() * 6)));
    const paragraphs = Array.from({ length: 3000 }, () => Array.from({ length: 80 }, () => words[Math.floor(random() * words.length)]).join(' '));
    writeFileSync(join(extra, 'appendix.md'), `# Appendix\n\n${paragraphs.join('.\n\n')}.\n`);
    largeBuild = join(work, 'index');
    const summary = await buildIndex({ ...demoBuildOptions([DEMO_PATHS.corpus, join(work, 'extra')], largeBuild), embed: false });
    largeBuildId = summary.manifest.buildId;
  });

  test.afterAll(() => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  /** The build ids IndexedDB holds, read by the page itself (the worker stores them). */
  const storedBuildIds = (page: Page) =>
    page.evaluate(
      () =>
        new Promise<string[]>((resolve, reject) => {
          const open = indexedDB.open('harel-chat');
          open.onerror = () => reject(open.error);
          open.onsuccess = () => {
            const db = open.result;
            const all = db.transaction('builds').objectStore('builds').getAll();
            all.onerror = () => reject(all.error);
            all.onsuccess = () => {
              db.close();
              resolve((all.result as { buildId: string }[]).map((b) => b.buildId));
            };
          };
        }),
    );

  test('(e) the stored build stays in IndexedDB, the update answers from memory, and the next visit offline answers', async ({ page, context, baseURL }) => {
    // A real QuotaExceededError from IndexedDB in the worker: DevTools' per-origin quota override.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(baseURL!).origin, quotaSize: 600_000 });
    // No embedder (a model id the app does not serve): its files would count against the quota too.
    const query = '?embedder=fixture/no-such-model';
    const small = await info(page, query);
    expect(small.fromCache).toBe(false);
    expect(small.storageWarning).toBeNull();
    expect(await storedBuildIds(page)).toEqual([small.buildId]);

    // The site publishes the larger build.
    await page.route('**/index/*', (route) => {
      const name = new URL(route.request().url()).pathname.split('/').pop()!;
      return route.fulfill({ body: readFileSync(join(largeBuild, name)), contentType: name.endsWith('.json') ? 'application/json' : 'application/gzip' });
    });
    const update = await info(page, query);
    expect(update.buildId).toBe(largeBuildId);
    expect(update.fromCache).toBe(false);
    expect(update.storageWarning).toContain('Not enough browser storage');
    expect(update.storageWarning).toContain(`build ${small.buildId}`);
    const { passages } = await search(page, 'what does travel insurance cover for lost luggage');
    expect(passages.length).toBeGreaterThan(0);
    // The build that answers offline was not deleted to make room for one that did not fit.
    expect(await storedBuildIds(page)).toEqual([small.buildId]);

    // The next visit, offline: the stored build answers.
    await page.unrouteAll();
    await page.route('**/index/**', (route) => route.abort('internetdisconnected'));
    const offline = await info(page, query);
    expect(offline.buildId).toBe(small.buildId);
    expect(offline.fromCache).toBe(true);
    expect(offline.indexError?.code).toBe('INDEX_DOWNLOAD_FAILED');
    const answer = await search(page, 'מה ההשתתפות העצמית בביטוח הרכב?');
    expect(answer.passages[0].file).toMatch(/^car\//);
  });
});
