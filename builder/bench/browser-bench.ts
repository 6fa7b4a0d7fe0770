/**
 * The browser half of `npm run bench`: an index served from a localhost static server to the bench
 * page (builder/bench/page/, the widget's real search worker behind WorkerSearchService) in
 * Chromium, measured as a visitor meets it.
 *
 * Each run is a fresh browser context (empty IndexedDB and HTTP cache):
 * - cold ready: a page calls load(); from that call (the worker is started by it) to `ready`:
 *   worker start, manifest, download, verification, inflation, decoding, the IndexedDB write;
 * - warm ready: the page is closed (its worker with it) and a second page of the same context
 *   loads again: the build comes from IndexedDB;
 * - worker heap after the warm load, after a full GC (CDP on the worker target);
 * - search: every query through WorkerSearchService, twice; the worker's own `timings.search`
 *   (routing, BM25 with its expansion passes, grouping, passages widened to their sections).
 *   The second pass is the figure (the first pays for the JIT warming up, reported apart).
 * Optionally a heap snapshot (memory held outside the V8 heap: ArrayBuffers, external strings)
 * and CPU profiles of the worker during a cold load, a warm load and a search pass, taken on an
 * unminified build of the same page in a run of their own, so they never touch the timed runs.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startStaticServer } from '../../tools/static-server.ts';
import { CHROMIUM_ARGS, findChromium } from '../browser/chromium.ts';
import type { BenchFloors, BenchLoad, BenchSearches } from './page/bench-page.ts';
import { summarizeProfile, WorkerCdp, type CpuProfile, type HeapUsage, type ProfileEntry } from './worker-cdp.ts';

export interface BrowserBenchOptions {
  indexDir: string;
  /** The manifest's file paths (for the floor measurements). */
  files: readonly string[];
  queries: readonly string[];
  /** The built bench page (build-page.ts). */
  pageDir: string;
  /** An unminified build of it, for the profiles (function names readable); none: no profiles. */
  profilePageDir?: string | null;
  /** Where to write the raw profiles (`<prefix>-cold.cpuprofile`…, open them in DevTools). */
  profilePrefix?: string | null;
  runs?: number;
  k?: number;
  /** Take a heap snapshot after the first run's warm load. */
  snapshot?: boolean;
  /** Holds the manifest's response back this long, as a phone's round trip would (0: localhost's). */
  manifestDelayMs?: number;
  /** Limit for one load or one search pass. */
  timeoutMs?: number;
  log?: (line: string) => void;
}

export interface LoadPhase {
  phase: string;
  ms: number;
}

export interface LoadFigures {
  ms: number;
  fromCache: boolean;
  /** Where the time went, from the worker's progress messages (page clock). */
  phases: LoadPhase[];
}

export interface SearchFigures {
  p50: number;
  p95: number;
  max: number;
  /** Page-side round trip of a search (postMessage, search, structured clone back). */
  roundTripP50: number;
  roundTripP95: number;
  /** Queries that found nothing. */
  empty: number;
  /** Queries the router filtered to a domain. */
  routed: number;
}

export interface BrowserRun {
  cold: LoadFigures;
  warm: LoadFigures;
  heap: HeapUsage;
  /** The first pass over the queries (JIT cold) and the second (the figure). */
  firstPass: SearchFigures;
  search: SearchFigures;
  /** The warm path's primitives alone on the same files (page thread). */
  floors: BenchFloors;
}

export interface ProfileSummary {
  durationMs: number;
  top: ProfileEntry[];
  /** The raw profile's file, when written. */
  file: string | null;
}

export interface BrowserBenchResult {
  chromium: string;
  runs: BrowserRun[];
  /** Medians over the runs. */
  median: {
    coldMs: number;
    warmMs: number;
    searchP50: number;
    searchP95: number;
    firstPassP95: number;
    heapUsedBytes: number;
    heapBackingStoreBytes: number | null;
  };
  snapshot: { total: number; byType: Record<string, number> } | null;
  profiles: { cold: ProfileSummary; warm: ProfileSummary; search: ProfileSummary } | null;
  /** Set when a run failed (a load that never became ready, a crashed worker): the runs before it are kept. */
  error: string | null;
}

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  if (n === 0) return NaN;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

const WORKER_URL = /search-worker[^/]*\.js/;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} took longer than ${Math.round(ms / 1000)} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Phases of a load from the worker's progress messages; unknown steps are ignored. */
export function loadPhases(load: BenchLoad): LoadPhase[] {
  const first = (step: string, done?: number) => load.progress.find((p) => p.step === step && (done === undefined || p.done === done))?.at;
  const marks: [string, number | undefined][] = [
    ['start', 0],
    ['download', first('download')],
    ['verify', first('verify')],
    ['decode', first('load', 0)],
    ['decoded', first('load', 1)],
    ['store', first('store', 0)],
    ['stored', first('store', 1)],
    ['ready', load.ms],
  ];
  const labels: Record<string, string> = {
    start: 'worker start, manifest, storage lookup',
    download: 'download',
    verify: 'sha256 + gunzip',
    decode: 'decode',
    decoded: 'after decode',
    store: 'IndexedDB write',
    stored: 'after store',
  };
  const present = marks.filter((m): m is [string, number] => m[1] !== undefined);
  const out: LoadPhase[] = [];
  for (let i = 0; i + 1 < present.length; i++) out.push({ phase: labels[present[i][0]] ?? present[i][0], ms: present[i + 1][1] - present[i][1] });
  return out;
}

function searchFigures(s: BenchSearches): SearchFigures {
  return {
    p50: percentile(s.search, 50),
    p95: percentile(s.search, 95),
    max: Math.max(...s.search),
    roundTripP50: percentile(s.roundTrip, 50),
    roundTripP95: percentile(s.roundTrip, 95),
    empty: s.hits.filter((h) => h === 0).length,
    routed: s.domains.filter((d) => d !== null).length,
  };
}

async function openBenchPage(context: BrowserContext, origin: string, timeoutMs: number): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(timeoutMs);
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => Boolean(window.harelBench));
  return page;
}

async function load(page: Page, timeoutMs: number, what: string): Promise<BenchLoad> {
  return withTimeout(
    page.evaluate((url) => window.harelBench.load(url), '/harel-index/manifest.json'),
    timeoutMs,
    what,
  );
}

/** Every request for the index's manifest (the one round trip a warm start always makes) answered `ms` late. */
async function delayManifest(context: BrowserContext, ms: number): Promise<void> {
  if (ms <= 0) return;
  await context.route('**/harel-index/manifest.json', async (route) => {
    await new Promise((resolve) => setTimeout(resolve, ms));
    await route.continue();
  });
}

async function serve(pageDir: string, indexDir: string) {
  return startStaticServer({ root: pageDir, mounts: { '/harel-index/': indexDir } });
}

export async function runBrowserBench(options: BrowserBenchOptions): Promise<BrowserBenchResult> {
  const runs = options.runs ?? 3;
  const k = options.k ?? 10;
  const timeoutMs = options.timeoutMs ?? 600_000;
  const log = options.log ?? (() => undefined);
  const queries = [...options.queries];
  const executablePath = findChromium();
  const browser = await chromium.launch({ executablePath, args: CHROMIUM_ARGS });
  const server = await serve(options.pageDir, options.indexDir);
  const result: BrowserBenchResult = {
    chromium: `${browser.version()} (${executablePath})`,
    runs: [],
    median: { coldMs: NaN, warmMs: NaN, searchP50: NaN, searchP95: NaN, firstPassP95: NaN, heapUsedBytes: NaN, heapBackingStoreBytes: null },
    snapshot: null,
    profiles: null,
    error: null,
  };
  try {
    for (let run = 0; run < runs; run++) {
      const context = await browser.newContext({ serviceWorkers: 'block' });
      await delayManifest(context, options.manifestDelayMs ?? 0);
      try {
        const first = await openBenchPage(context, server.origin, timeoutMs);
        const cold = await load(first, timeoutMs, 'cold load');
        if (cold.info.fromCache) throw new Error('a fresh context loaded the index from its cache');
        await first.close();
        const second = await openBenchPage(context, server.origin, timeoutMs);
        const warm = await load(second, timeoutMs, 'warm load');
        if (!warm.info.fromCache) throw new Error(`the second load downloaded the index again (storage: ${warm.info.storageWarning ?? 'no warning'})`);
        const cdp = await WorkerCdp.attach(browser, WORKER_URL);
        const heap = await cdp.heapAfterGc();
        if (run === 0 && options.snapshot) result.snapshot = await cdp.snapshotSizes();
        await cdp.detach();
        const pass = () =>
          withTimeout(
            second.evaluate(([q, n]) => window.harelBench.search(q, n), [queries, k] as const),
            timeoutMs,
            'a search pass',
          );
        const firstPass = searchFigures(await pass());
        const search = searchFigures(await pass());
        // Measured last, on a page that needs nothing more; a failure here fails these figures only.
        const floors = await withTimeout(
          second.evaluate(
            (urls) => window.harelBench.floors(urls),
            options.files.map((f) => `/harel-index/${f}`),
          ),
          Math.min(timeoutMs, 180_000),
          'the floor measurements',
        ).catch(
          (error: unknown): BenchFloors => ({
            idbRead: null,
            sha256: null,
            gunzip: null,
            idbReadInflated: null,
            sha256Inflated: null,
            errors: [error instanceof Error ? error.message.split('\n')[0] : String(error)],
          }),
        );
        const figures: BrowserRun = {
          cold: { ms: cold.ms, fromCache: cold.info.fromCache, phases: loadPhases(cold) },
          warm: { ms: warm.ms, fromCache: warm.info.fromCache, phases: loadPhases(warm) },
          heap,
          firstPass,
          search,
          floors,
        };
        result.runs.push(figures);
        log(
          `  run ${run + 1}: cold ${cold.ms.toFixed(0)} ms, warm ${warm.ms.toFixed(0)} ms, search p50 ${search.p50.toFixed(1)} / p95 ${search.p95.toFixed(1)} ms (first pass p95 ${firstPass.p95.toFixed(1)}), heap ${(heap.usedSize / 1e6).toFixed(1)} MB + ${((heap.backingStorageSize ?? 0) / 1e6).toFixed(1)} MB ArrayBuffers`,
        );
      } finally {
        await context.close();
      }
    }
    if (options.profilePageDir) result.profiles = await profileRun(browser, options.profilePageDir, options.indexDir, queries, k, timeoutMs, options.profilePrefix ?? null);
  } catch (error) {
    result.error = error instanceof Error ? error.message.split('\n')[0] : String(error);
    log(`  failed: ${result.error}`);
  } finally {
    await browser.close().catch(() => undefined);
    await server.close();
  }
  const r = result.runs;
  if (r.length) {
    result.median = {
      coldMs: median(r.map((x) => x.cold.ms)),
      warmMs: median(r.map((x) => x.warm.ms)),
      searchP50: median(r.map((x) => x.search.p50)),
      searchP95: median(r.map((x) => x.search.p95)),
      firstPassP95: median(r.map((x) => x.firstPass.p95)),
      heapUsedBytes: median(r.map((x) => x.heap.usedSize)),
      heapBackingStoreBytes: r.every((x) => x.heap.backingStorageSize !== undefined) ? median(r.map((x) => x.heap.backingStorageSize!)) : null,
    };
  }
  return result;
}

/** CPU profiles of the worker: a cold load, a warm load, and one pass of searches after it. */
async function profileRun(
  browser: Browser,
  pageDir: string,
  indexDir: string,
  queries: string[],
  k: number,
  timeoutMs: number,
  prefix: string | null,
): Promise<NonNullable<BrowserBenchResult['profiles']>> {
  const server = await serve(pageDir, indexDir);
  const context = await browser.newContext({ serviceWorkers: 'block' });
  const top = async (profile: CpuProfile, what: string): Promise<ProfileSummary> => {
    const p = summarizeProfile(profile);
    let file: string | null = null;
    if (prefix) {
      file = `${prefix}-${what}.cpuprofile`;
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, JSON.stringify(profile));
    }
    return { durationMs: p.durationMs, top: p.entries.slice(0, 40), file };
  };
  try {
    const profiledLoad = async (page: Page, what: string) => {
      // The worker is started first (its module fetched and evaluated), so the profiler is on
      // before the load begins.
      await page.evaluate(() => window.harelBench.prestart());
      const cdp = await WorkerCdp.attach(browser, WORKER_URL);
      await cdp.startProfiler();
      await load(page, timeoutMs, what);
      return { cdp, profile: await cdp.stopProfiler() };
    };
    const first = await openBenchPage(context, server.origin, timeoutMs);
    const cold = await profiledLoad(first, 'profiled cold load');
    await cold.cdp.detach();
    await first.close();
    const second = await openBenchPage(context, server.origin, timeoutMs);
    const warm = await profiledLoad(second, 'profiled warm load');
    // One unprofiled pass warms the JIT, as in the timed runs.
    await second.evaluate(([q, n]) => window.harelBench.search(q, n), [queries, k] as const);
    await warm.cdp.startProfiler();
    await second.evaluate(([q, n]) => window.harelBench.search(q, n), [queries, k] as const);
    const search = await warm.cdp.stopProfiler();
    await warm.cdp.detach();
    return { cold: await top(cold.profile, 'cold'), warm: await top(warm.profile, 'warm'), search: await top(search, 'search') };
  } finally {
    await context.close();
    await server.close();
  }
}
