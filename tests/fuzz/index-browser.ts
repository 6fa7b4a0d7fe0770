/**
 * Index mutants published over a stored good build, in Chromium (the browser half of the index-file fuzzer, docs/reliability.md).
 *
 * A static server (tools/static-server.ts, its `root` a function) publishes builds at one index URL,
 * as a site does: first the good build (a real one: the tests' index, the demo corpus embedded with
 * the tiny TEST embedder), which the widget downloads and stores in IndexedDB; then, case by case, a
 * mutant made by the index fuzzer's generator (tests/fuzz/index-files.ts, `mutation` and `mutate`:
 * case i has seed `seed + i`, the same mutation `--target index` reads in Node). Its manifest gets a
 * build id of its own (`fuzz-<case seed>`), so the widget sees a new build and does not just reuse
 * the stored one. The page is reloaded, and then:
 * - refused: the stored good build answers (a question answered with citations), `searchReady`'s
 *   `indexError` and the details (`[part="details"] .detail`) give the code of the refusal, and the
 *   good build is still in IndexedDB;
 * - or read: the new build is in use, with no error, and answers (the next case first publishes
 *   the good build again, so every mutant meets a stored good build).
 * Never: a page error or a crashed page, no index at all (searchReady rejected: the stored build
 * should always answer), the page settling (or answering) past the limit, an unexplained refusal.
 *
 * `npm run fuzz -- --target index-browser` runs it on a page of its own (the widget's bundle,
 * tests/support/build-widget.ts); tests/e2e/index-mutants.spec.ts runs a short version on the tests'
 * dev server.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Page } from 'playwright-core';
import { startStaticServer, type StaticServerOptions } from '../../tools/static-server.ts';
import { type IndexFiles, type Mutation, mutate, mutation } from './index-files.ts';

/** The question the good build answers with citations (demo corpus, home policy). */
export const BROWSER_QUESTION = 'How soon must I report a home insurance claim?';

/** A build as a site publishes it: manifest.json's bytes and the files beside it. */
export interface PublishedBuild {
  manifestBytes: Uint8Array;
  files: Record<string, Uint8Array>;
}

/** Reads an index folder (a real build) as the fuzzer's `IndexFiles`. */
export async function readIndexFolder(dir: string): Promise<IndexFiles> {
  const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8'));
  const files: Record<string, Uint8Array> = {};
  for (const name of await readdir(dir)) if (name !== 'manifest.json') files[name] = new Uint8Array(await readFile(join(dir, name)));
  return { manifest, files };
}

export const asPublished = (build: IndexFiles): PublishedBuild => ({ manifestBytes: new TextEncoder().encode(JSON.stringify(build.manifest)), files: build.files });

/** The mutation of case `caseSeed`: the one `npm run fuzz -- --target index --seed <caseSeed> --runs 1` reads in Node. */
export const caseMutation = (caseSeed: number): Mutation => fc.sample(mutation, { seed: caseSeed, numRuns: 1 })[0];

/**
 * The mutant of case `caseSeed` as published: `mutate`'s output, its manifest's build id (when the
 * mutation left the good one) replaced by `fuzz-<caseSeed>`.
 */
export function browserMutant(good: IndexFiles, m: Mutation, caseSeed: number): { build: PublishedBuild; buildId: string | null } {
  const mutant = mutate(good, m);
  let manifest: unknown;
  try {
    manifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(mutant.manifestBytes));
  } catch {
    return { build: mutant, buildId: null };
  }
  if (manifest === null || typeof manifest !== 'object' || Array.isArray(manifest)) return { build: mutant, buildId: null };
  const record = manifest as Record<string, unknown>;
  if (record.buildId === good.manifest.buildId) record.buildId = `fuzz-${caseSeed}`;
  return {
    build: { manifestBytes: new TextEncoder().encode(JSON.stringify(record)), files: mutant.files },
    buildId: typeof record.buildId === 'string' ? record.buildId : null,
  };
}

export interface IndexPublisher {
  origin: string;
  /** Where the widget's `index` attribute points. */
  manifestUrl: string;
  /** Publishes `build` at the index URL: each build in a folder of its own, the server's root switched to it. */
  publish(build: PublishedBuild): Promise<void>;
  close(): Promise<void>;
}

/**
 * A static server whose `/index/` is the build last published. `page` (HTML for `/`) and `mounts`
 * (the widget's bundle, the models) let the same server serve the app, as one site does.
 */
export async function startIndexPublisher(options: { page?: string; mounts?: StaticServerOptions['mounts'] } = {}): Promise<IndexPublisher> {
  const work = await mkdtemp(join(tmpdir(), 'harel-fuzz-publish-'));
  let current = join(work, 'empty');
  await mkdir(current, { recursive: true });
  let n = 0;
  const server = await startStaticServer({
    root: () => current,
    port: 0,
    host: 'localhost',
    mounts: options.mounts,
    handle: (path, res) => {
      if (path !== '/' || options.page === undefined) return false;
      res.setHeader('Content-Type', 'text/html; charset=utf-8');
      res.setHeader('Cache-Control', 'no-cache');
      res.end(options.page);
      return true;
    },
  });
  return {
    origin: server.origin,
    manifestUrl: `${server.origin}/index/manifest.json`,
    async publish(build) {
      const site = join(work, `build-${n++}`);
      await mkdir(join(site, 'index'), { recursive: true });
      await writeFile(join(site, 'index', 'manifest.json'), build.manifestBytes);
      // Names come from the generator (FILE_OF), never from a mutated manifest: nothing is written outside.
      for (const [name, bytes] of Object.entries(build.files)) await writeFile(join(site, 'index', name), bytes);
      const previous = current;
      current = site;
      if (previous !== join(work, 'empty')) await rm(previous, { recursive: true, force: true });
    },
    async close() {
      await server.close();
      await rm(work, { recursive: true, force: true });
    },
  };
}

/** What the page says after a reload: the build in use and why, the details, the answer, what IndexedDB holds. */
interface PageState {
  loadMs: number;
  settled: { info: { buildId: string; fromCache: boolean; searchMode: string; indexError: { code: string; message: string } | null } } | { error: { code: string; message: string } } | { hang: true };
  detail: { code: string | null; text: string } | null;
  answer?: { citations: number; refused: boolean; markers: number[]; ms: number } | { error: string } | { hang: true };
  stored: string[];
}

async function reload(page: Page, appUrl: string, limitMs: number): Promise<PageState> {
  const started = performance.now();
  await page.goto(appUrl, { waitUntil: 'domcontentloaded', timeout: limitMs });
  const settled = await page.evaluate(async (limit) => {
    await customElements.whenDefined('harel-chat');
    const el = document.querySelector('harel-chat')!;
    const hang = new Promise<{ hang: true }>((resolve) => setTimeout(() => resolve({ hang: true }), limit));
    try {
      return await Promise.race([el.searchReady.then((i) => ({ info: { buildId: i.buildId, fromCache: i.fromCache, searchMode: i.searchMode, indexError: i.indexError ?? null } })), hang]);
    } catch (error) {
      const e = error as { code?: string; message?: string };
      return { error: { code: e.code ?? 'none', message: e.message ?? String(error) } };
    }
  }, limitMs);
  const loadMs = performance.now() - started;
  const state: PageState = { loadMs, settled, detail: null, stored: [] };
  // Always in the page (hidden until the (i) button): the line that says why the new build was not used.
  // Rendered once the element has drawn the ready state: waited for when there is something to say.
  const detail = page.locator('harel-chat [part="details"] .detail').first();
  if ('info' in settled && settled.info.indexError) await detail.waitFor({ state: 'attached', timeout: 5000 }).catch(() => undefined);
  if ((await detail.count()) > 0) state.detail = { code: await detail.getAttribute('data-code'), text: (await detail.textContent()) ?? '' };
  if ('info' in settled) {
    state.answer = await page.evaluate(
      async ({ q, limit }) => {
        const el = document.querySelector('harel-chat')!;
        const hang = new Promise<{ hang: true }>((resolve) => setTimeout(() => resolve({ hang: true }), limit));
        const t0 = performance.now();
        try {
          return await Promise.race([
            el.ask(q).then((a) => ({
              citations: a.citations.length,
              refused: a.refused,
              markers: [...a.text.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1])),
              ms: performance.now() - t0,
            })),
            hang,
          ]);
        } catch (error) {
          return { error: String(error) };
        }
      },
      { q: BROWSER_QUESTION, limit: limitMs },
    );
    state.stored = await page.evaluate(
      () =>
        new Promise<string[]>((resolve) => {
          const open = indexedDB.open('harel-chat');
          open.onerror = () => resolve([]);
          open.onsuccess = () => {
            const db = open.result;
            if (!db.objectStoreNames.contains('builds')) {
              db.close();
              resolve([]);
              return;
            }
            const all = db.transaction('builds').objectStore('builds').getAll();
            all.onerror = () => resolve([]);
            all.onsuccess = () => {
              db.close();
              resolve((all.result as { buildId: string }[]).map((b) => b.buildId));
            };
          };
        }),
    );
  }
  return state;
}

export interface IndexBrowserFailure {
  seed: number;
  mutation: Mutation | 'the good build';
  problem: string;
}

export interface IndexBrowserReport {
  seed: number;
  runs: number;
  /** Mutants refused while the stored good build kept answering, by the code the details gave. */
  refused: Record<string, number>;
  /** Mutants read as a new build that answered (the good build published again after each). */
  readOk: number;
  /** Answers with citations from the good build after a refusal. */
  goodAnswers: number;
  failures: IndexBrowserFailure[];
  /** Slowest reload until searchReady settled, and slowest answer. */
  maxLoadMs: number;
  maxAnswerMs: number;
  ms: number;
}

export interface IndexBrowserOptions {
  seed: number;
  runs: number;
  good: IndexFiles;
  publisher: IndexPublisher;
  /** The app's page, its `<harel-chat>` pointed at `publisher.manifestUrl`. */
  appUrl: string;
  /** A reload must settle (and a question be answered) within this; default 20 s. */
  limitMs?: number;
  onCase?: (i: number, caseSeed: number) => void;
  onOutcome?: (caseSeed: number, m: Mutation, outcome: string) => void;
}

/** Runs `runs` cases from `seed` in `page` (a fresh context: nothing stored yet). */
export async function fuzzIndexInBrowser(page: Page, options: IndexBrowserOptions): Promise<IndexBrowserReport> {
  const started = performance.now();
  const limitMs = options.limitMs ?? 20_000;
  const goodId = options.good.manifest.buildId as string;
  const report: IndexBrowserReport = { seed: options.seed, runs: 0, refused: {}, readOk: 0, goodAnswers: 0, failures: [], maxLoadMs: 0, maxAnswerMs: 0, ms: 0 };
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(`page error: ${error.message}`));
  page.on('crash', () => pageErrors.push('the page crashed'));
  const timed = (state: PageState) => {
    report.maxLoadMs = Math.max(report.maxLoadMs, state.loadMs);
    if (state.answer && 'ms' in state.answer) report.maxAnswerMs = Math.max(report.maxAnswerMs, state.answer.ms);
  };
  const answerProblem = (state: PageState, needCitations: boolean): string | null => {
    const a = state.answer;
    if (!a) return 'no answer';
    if ('hang' in a) return `no answer within ${limitMs} ms`;
    if ('error' in a) return `the question failed: ${a.error}`;
    if (a.markers.some((n) => n < 1 || n > a.citations)) return `a marker without its citation: [${a.markers.join('], [')}] with ${a.citations} citations`;
    if (needCitations && (a.refused || a.citations === 0)) return `not answered with citations (refused: ${a.refused}, ${a.citations} citations)`;
    return null;
  };

  /** Publishes the good build and reloads until it is the one in use (first case, and after a mutant was read). */
  let inUse: string | null = null;
  const restoreGood = async (caseSeed: number): Promise<boolean> => {
    await options.publisher.publish(asPublished(options.good));
    const state = await reload(page, options.appUrl, limitMs);
    timed(state);
    const problem =
      'hang' in state.settled
        ? `the good build did not load within ${limitMs} ms`
        : 'error' in state.settled
          ? `the good build failed: [${state.settled.error.code}] ${state.settled.error.message}`
          : state.settled.info.buildId !== goodId
            ? `build ${state.settled.info.buildId} in use, not the good ${goodId}`
            : !state.stored.includes(goodId)
              ? `the good build is not in IndexedDB (${state.stored.join(', ') || 'nothing'})`
              : answerProblem(state, true);
    if (problem || pageErrors.length) {
      report.failures.push({ seed: caseSeed, mutation: 'the good build', problem: [problem, ...pageErrors.splice(0)].filter(Boolean).join('; ') });
      inUse = null;
      return false;
    }
    inUse = goodId;
    return true;
  };

  for (let i = 0; i < options.runs; i++) {
    const caseSeed = options.seed + i;
    options.onCase?.(i, caseSeed);
    if (inUse !== goodId && !(await restoreGood(caseSeed))) break;
    const m = caseMutation(caseSeed);
    const { build, buildId } = browserMutant(options.good, m, caseSeed);
    await options.publisher.publish(build);
    pageErrors.length = 0;
    let state: PageState;
    try {
      state = await reload(page, options.appUrl, limitMs);
    } catch (error) {
      report.runs++;
      report.failures.push({ seed: caseSeed, mutation: m, problem: `harness: ${String(error)}` });
      inUse = null;
      continue;
    }
    report.runs++;
    timed(state);
    const problems: string[] = [...pageErrors.splice(0)];
    let outcome = '';
    const s = state.settled;
    if ('hang' in s) problems.push(`searchReady did not settle within ${limitMs} ms`);
    else if ('error' in s) problems.push(`no index answers (the stored good build should): [${s.error.code}] ${s.error.message}`);
    else if (s.info.buildId === goodId) {
      const code = s.info.indexError?.code;
      if (!code) problems.push(buildId === goodId ? 'the mutant kept the good build id' : `the new build (${buildId}) was neither used nor refused with a reason`);
      else {
        if (state.detail?.code !== code || !state.detail.text.includes(`[${code}]`)) problems.push(`the details do not say why: ${JSON.stringify(state.detail)}`);
        if (!s.info.fromCache) problems.push('the good build was downloaded again, not read from IndexedDB');
        if (!state.stored.includes(goodId)) problems.push(`the good build is gone from IndexedDB (${state.stored.join(', ') || 'nothing'})`);
        const answer = answerProblem(state, true);
        if (answer) problems.push(`the good build: ${answer}`);
        else report.goodAnswers++;
        outcome = `refused ${code}`;
      }
      inUse = goodId;
    } else if (buildId !== null && s.info.buildId === buildId) {
      if (s.info.indexError) problems.push(`the new build is in use but an error is reported: ${JSON.stringify(s.info.indexError)}`);
      const answer = answerProblem(state, false);
      if (answer) problems.push(`the new build: ${answer}`);
      outcome = 'read';
      inUse = buildId;
    } else {
      problems.push(`build ${s.info.buildId} in use: neither the good ${goodId} nor the mutant's ${buildId}`);
      inUse = null;
    }
    if (problems.length) {
      report.failures.push({ seed: caseSeed, mutation: m, problem: problems.join('; ') });
      inUse = null;
      outcome = `FAIL ${problems.join('; ')}`;
    } else if (outcome === 'read') report.readOk++;
    else {
      const code = outcome.slice('refused '.length);
      report.refused[code] = (report.refused[code] ?? 0) + 1;
    }
    options.onOutcome?.(caseSeed, m, outcome);
  }
  report.ms = performance.now() - started;
  return report;
}
