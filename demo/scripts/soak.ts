/**
 * `npm run soak [-- --questions 2000] [--index test|demo] [--site <dir>] [--json <file>]`: many
 * questions in ONE Chromium page, as a long-lived tab meets them (docs/reliability.md, the soak). Figures only,
 * never asserted in tests; docs/reliability.md holds the full run's.
 *
 * The app (`npm run build`'s: the demo's index and its real E5 where models/ holds it, else the
 * tests' index and the tiny TEST embedder; --index chooses)
 * is served by the static server. The questions (demo/questions.json, in turn) are asked through
 * `el.ask`, one after another, with `el.clear()` after every 100. After each block of 200:
 * - the JavaScript heap after a forced GC, the page's and each worker's (CDP
 *   `HeapProfiler.collectGarbage`, then `Runtime.getHeapUsage`): the search worker holds the index;
 *   and the ArrayBuffers' bytes beside it;
 * - p50/p95 of the block's answers (el.ask, question to answer, timed in the page);
 * - IndexedDB, just before the clear (the conversation at its longest): `navigator.storage
 *   .estimate()`'s usage and the records of each store (the conversation store keeps one record a
 *   conversation, its turns in it).
 * Heap growth is read from question 200 (the JIT, the caches and the first conversation settled)
 * to the last block.
 */
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { buildSite } from './build-site.ts';
import { hasE5 } from './prepare-demo.ts';
import { parseScriptArgs, usageError } from '../../tools/script-args.ts';
import { startStaticServer } from '../../tools/static-server.ts';
import { CHROMIUM_ARGS, findChromium } from '../../builder/browser/chromium.ts';
import { loadQuestions } from '../../builder/eval/questions.ts';
import { percentile } from '../../builder/bench/browser-bench.ts';

const USAGE = `usage: npm run soak [-- --questions 2000] [--index test|demo] [--site <dir>] [--json <file>]
  Asks many questions in one Chromium page (el.ask, el.clear() every 100) and prints, for each
  block of 200: the JS heap after a forced GC (page and workers), p50/p95 answer latency, and
  IndexedDB's usage and records. About 4 minutes for 2,000 on the tests' index (2 cores).
  --questions <n>   how many questions (default 2000; a multiple of 200 reads best)
  --index <which>   'demo' (the default where models/ holds the real E5): the demo's index and
                    its real E5; 'test' (the default without it): the browser tests' index and
                    the tiny TEST embedder (hybrid, not E5)
  --site <dir>      an app already built (npm run build's) instead of building one
  --json <file>     also write every figure there
  --help            this text`;

const { values } = parseScriptArgs(USAGE, {
  options: { questions: { type: 'string' }, index: { type: 'string' }, site: { type: 'string' }, json: { type: 'string' } },
});
const total = Number(values.questions ?? 2000);
if (!Number.isSafeInteger(total) || total < 1) usageError(USAGE, `--questions must be a positive whole number (got ${values.questions})`);
// The app as a visitor meets it, with the real model, wherever models/ holds it.
const which = values.index ?? (hasE5() ? 'demo' : 'test');
if (which !== 'test' && which !== 'demo') usageError(USAGE, `--index is 'test' or 'demo' (got ${which})`);
const CLEAR_EVERY = 100;
const BLOCK = 200;

interface Block {
  /** Questions asked so far, at the end of this block. */
  questions: number;
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  refused: number;
  /** Bytes after a forced GC. */
  pageHeap: number;
  workerHeap: number;
  heap: number;
  /** ArrayBuffers' bytes, page and workers. */
  arrayBuffers: number;
  storageUsage: number;
  /** Records per IndexedDB store ('harel-chat/conversations': 1 a conversation), before the clear. */
  records: Record<string, number>;
  /** Turns in the stored conversations, before the clear. */
  turns: number;
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const questions = (await loadQuestions('demo/questions.json')).map((q) => q.question);
if (!values.site) log(`soak: building the app (${which} index)…`);
const site = values.site ? resolve(values.site) : await buildSite({ outDir: resolve(`.tmp/soak/site-${which}`), index: which, fetch: false, quiet: true });
const server = await startStaticServer({ root: site, port: 0 });
const browser = await chromium.launch({ executablePath: findChromium(), args: CHROMIUM_ARGS });

interface HeapUsage {
  usedSize: number;
  /** ArrayBuffers' bytes (the index's typed arrays, onnxruntime's wasm memory): outside the JS heap. */
  backingStorageSize?: number;
}

/**
 * Heap after GC, by CDP (`HeapProfiler.collectGarbage`, then `Runtime.getHeapUsage`): the page's
 * through its own session; each worker's (the search worker holds the index and the query model)
 * through the browser's session, attached to the worker's target (Playwright opens CDP sessions on
 * pages only, and `performance.memory` does not exist in workers).
 */
async function heapAfterGc(page: Page, browser: Browser): Promise<{ pageHeap: number; workerHeap: number; arrayBuffers: number }> {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('HeapProfiler.collectGarbage');
  await cdp.send('HeapProfiler.collectGarbage');
  const pageUsage = (await cdp.send('Runtime.getHeapUsage')) as HeapUsage;
  await cdp.detach();
  const root = await browser.newBrowserCDPSession();
  let workerHeap = 0;
  let arrayBuffers = pageUsage.backingStorageSize ?? 0;
  try {
    let id = 0;
    const replies = new Map<number, (result: unknown) => void>();
    root.on('Target.receivedMessageFromTarget', (event) => {
      const reply = JSON.parse(event.message) as { id?: number; result?: unknown };
      if (reply.id !== undefined) replies.get(reply.id)?.(reply.result);
    });
    const call = async <T>(sessionId: string, method: string): Promise<T> => {
      const reply = new Promise<T>((done) => replies.set(++id, done as (r: unknown) => void));
      await root.send('Target.sendMessageToTarget', { sessionId, message: JSON.stringify({ id, method, params: {} }) });
      return reply;
    };
    const { targetInfos } = await root.send('Target.getTargets');
    for (const target of targetInfos.filter((t) => t.type === 'worker')) {
      const { sessionId } = await root.send('Target.attachToTarget', { targetId: target.targetId, flatten: false });
      await call(sessionId, 'HeapProfiler.collectGarbage');
      await call(sessionId, 'HeapProfiler.collectGarbage');
      const usage = await call<HeapUsage>(sessionId, 'Runtime.getHeapUsage');
      workerHeap += usage.usedSize;
      arrayBuffers += usage.backingStorageSize ?? 0;
      await root.send('Target.detachFromTarget', { sessionId });
    }
  } finally {
    await root.detach();
  }
  return { pageHeap: pageUsage.usedSize, workerHeap, arrayBuffers };
}

const storage = (page: Page) =>
  page.evaluate(async () => {
    const { usage = 0 } = await navigator.storage.estimate();
    const records: Record<string, number> = {};
    let turns = 0;
    for (const { name } of await indexedDB.databases()) {
      if (!name) continue;
      const db = await new Promise<IDBDatabase>((ok, fail) => {
        const open = indexedDB.open(name);
        open.onsuccess = () => ok(open.result);
        open.onerror = () => fail(open.error);
      });
      for (const store of Array.from(db.objectStoreNames)) {
        if (store === 'conversations') {
          const all = await new Promise<{ turns?: unknown[] }[]>((ok, fail) => {
            const request = db.transaction(store).objectStore(store).getAll();
            request.onsuccess = () => ok(request.result);
            request.onerror = () => fail(request.error);
          });
          turns += all.reduce((n, record) => n + (record.turns?.length ?? 0), 0);
        }
        records[`${name}/${store}`] = await new Promise<number>((ok, fail) => {
          const count = db.transaction(store).objectStore(store).count();
          count.onsuccess = () => ok(count.result);
          count.onerror = () => fail(count.error);
        });
      }
      db.close();
    }
    return { usage, records, turns };
  });

const blocks: Block[] = [];
const started = performance.now();
let searchMode = '';
try {
  // The app's service worker runs as it would for a visitor (its own process: not measured here).
  const context = await browser.newContext();
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${server.origin}/?lang=en`);
  const info = await page.evaluate(async () => {
    await customElements.whenDefined('harel-chat');
    await document.querySelector('harel-chat')!.ready;
    return document.querySelector('harel-chat')!.searchReady;
  });
  searchMode = `${info.searchMode}${info.embedder ? ` (${info.embedder.id})` : ''}`;
  log(`soak: ${total} questions in one page, search ${searchMode}, a clear every ${CLEAR_EVERY}`);
  let latencies: number[] = [];
  let refused = 0;
  for (let asked = 0; asked < total; ) {
    const n = Math.min(CLEAR_EVERY, total - asked);
    const batch = Array.from({ length: n }, (_, i) => questions[(asked + i) % questions.length]);
    // One evaluate a conversation: the latencies are the page's own, without the driver's round trips.
    const r = await page.evaluate(async (qs) => {
      const el = document.querySelector('harel-chat')!;
      const ms: number[] = [];
      let refusedHere = 0;
      for (const q of qs) {
        const t = performance.now();
        const answer = await el.ask(q);
        ms.push(performance.now() - t);
        if (answer.refused) refusedHere++;
      }
      return { ms, refused: refusedHere };
    }, batch);
    latencies.push(...r.ms);
    refused += r.refused;
    asked += n;
    const measure = asked % BLOCK === 0 || asked === total;
    const stored = measure ? await storage(page) : null;
    await page.evaluate(() => document.querySelector('harel-chat')!.clear());
    if (stored) {
      const heap = await heapAfterGc(page, browser);
      const { usage, records, turns } = stored;
      const sorted = [...latencies].sort((a, b) => a - b);
      blocks.push({
        questions: asked,
        p50Ms: percentile(sorted, 50),
        p95Ms: percentile(sorted, 95),
        maxMs: sorted[sorted.length - 1],
        refused,
        ...heap,
        heap: heap.pageHeap + heap.workerHeap,
        storageUsage: usage,
        records,
        turns,
      });
      log(`  ${asked}: p95 ${percentile(sorted, 95).toFixed(0)} ms, heap ${(blocks.at(-1)!.heap / 2 ** 20).toFixed(2)} MB`);
      latencies = [];
      refused = 0;
    }
  }
  if (pageErrors.length) log(`soak: ${pageErrors.length} page errors, the first: ${pageErrors[0]}`);
} finally {
  await browser.close();
  await server.close();
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(2);
const first = blocks[0];
const last = blocks[blocks.length - 1];
const growth = first && last ? (last.heap / first.heap - 1) * 100 : 0;
const conversations = (b: Block) => b.records['harel-chat/conversations'] ?? 0;
const lines = [
  `| questions | p50 ms | p95 ms | max ms | refused | JS heap after GC, MB (page + workers) | ArrayBuffers, MB | IndexedDB usage, MB | conversation records (turns) |`,
  `|---:|---:|---:|---:|---:|---:|---:|---:|---:|`,
  ...blocks.map(
    (b) =>
      `| ${b.questions.toLocaleString('en')} | ${b.p50Ms.toFixed(0)} | ${b.p95Ms.toFixed(0)} | ${b.maxMs.toFixed(0)} | ${b.refused} | ${mb(b.heap)} (${mb(b.pageHeap)} + ${mb(b.workerHeap)}) | ${mb(b.arrayBuffers)} | ${mb(b.storageUsage)} | ${conversations(b)} (${b.turns}) |`,
  ),
];
process.stdout.write(`${lines.join('\n')}\n`);
const minutes = (performance.now() - started) / 60_000;
const summary = `soak: ${total} questions, search ${searchMode}, heap after GC ${first ? `${mb(first.heap)} MB at ${first.questions} → ${mb(last.heap)} MB at ${last.questions} (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} %)` : 'not measured'}, ${minutes.toFixed(1)} min, load ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`;
log(summary);
if (values.json) {
  await writeFile(
    values.json,
    `${JSON.stringify({ questions: total, index: which, searchMode, clearEvery: CLEAR_EVERY, blocks, heapGrowthPercent: growth, minutes, load: loadavg()[0], cores: cpus().length }, null, 2)}\n`,
  );
  log(`soak: figures written to ${values.json}`);
}
