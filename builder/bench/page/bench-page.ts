/**
 * The page `npm run bench` opens in Chromium: the widget's real search worker behind the real
 * page-side client (WorkerSearchService), and nothing else, so what is timed is the worker the
 * widget ships. builder/bench/browser-bench.ts builds this page with Vite (production, the
 * widget's worker settings) and calls `window.harelBench` through Playwright.
 */
import type { Progress } from '../../../widget/core/schema.ts';
import type { IndexLoadInfo } from '../../../widget/workers/search-protocol.ts';
import { WorkerSearchService } from '../../../widget/search/worker-search-service.ts';

export interface BenchLoad {
  /** Milliseconds from calling load() (the worker is started by it unless prestarted) to `ready`. */
  ms: number;
  info: IndexLoadInfo;
  /** Each progress message the worker sent, with page-clock milliseconds since load() was called. */
  progress: { at: number; step: string; done: number; total: number | null }[];
}

export interface BenchSearches {
  /** The worker's own `timings.search` for each query, in order. */
  search: number[];
  /** Page-side round trip of each search (postMessage, search, passages widened, structured clone back). */
  roundTrip: number[];
  /** Hits returned for each query (0 when a query found nothing). */
  hits: number[];
  /** The domain each search was filtered to (null: the whole index). */
  domains: (string | null)[];
}

/**
 * What the warm path's primitives cost on these bytes alone, on the page's thread: the floor
 * under warm ready. Milliseconds, or null when the step failed (see `errors`).
 */
export interface BenchFloors {
  /** Reading the stored files back from IndexedDB in one transaction (written just before). */
  idbRead: number | null;
  /** crypto.subtle.digest('SHA-256') over every file, one after another. */
  sha256: number | null;
  /** DecompressionStream('gzip') of every file, as widget/core/format/bytes.ts does it. */
  gunzip: number | null;
  /** The alternative of storing the files inflated: reading those back, and their sha256. */
  idbReadInflated: number | null;
  sha256Inflated: number | null;
  errors: string[];
}

export interface HarelBench {
  /** Starts the worker with no index (its code fetched and evaluated), so a profiler can attach first. */
  prestart(): Promise<void>;
  load(manifestUrl: string): Promise<BenchLoad>;
  search(queries: string[], k: number): Promise<BenchSearches>;
  /** Times the warm path's primitives on the index files at these URLs. */
  floors(urls: string[]): Promise<BenchFloors>;
  dispose(): void;
}

declare global {
  interface Window {
    harelBench: HarelBench;
  }
}

let service: WorkerSearchService | null = null;

window.harelBench = {
  async prestart() {
    service ??= new WorkerSearchService();
    // A route() before load() starts the worker and is answered INDEX_NOT_READY: the worker's
    // module has then been fetched and evaluated.
    await service.route('').catch(() => undefined);
  },
  async load(manifestUrl) {
    service ??= new WorkerSearchService();
    const progress: BenchLoad['progress'] = [];
    const started = performance.now();
    const onProgress = (p: Progress) => progress.push({ at: performance.now() - started, step: p.step, done: p.done, total: p.total });
    const info = (await service.load({ manifestUrl, modelBase: null, onProgress })) as IndexLoadInfo;
    return { ms: performance.now() - started, info, progress };
  },
  async search(queries, k) {
    if (!service) throw new Error('load() first');
    const out: BenchSearches = { search: [], roundTrip: [], hits: [], domains: [] };
    for (const query of queries) {
      const started = performance.now();
      const response = await service.search({ query, k });
      out.roundTrip.push(performance.now() - started);
      out.search.push(response.timings.search);
      out.hits.push(response.passages.length);
      out.domains.push(response.result.domainFilter);
    }
    return out;
  },
  async floors(urls) {
    const files = await Promise.all(urls.map(async (url) => new Uint8Array(await (await fetch(url, { cache: 'no-store' })).arrayBuffer())));
    const errors: string[] = [];
    const guarded = async (what: string, work: () => Promise<number>): Promise<number | null> => {
      try {
        return await work();
      } catch (error) {
        errors.push(`${what}: ${error instanceof Error ? `${error.name} ${error.message}` : String(error)}`);
        return null;
      }
    };
    const timed = (what: string, work: () => Promise<unknown>) =>
      guarded(what, async () => {
        const started = performance.now();
        await work();
        return performance.now() - started;
      });
    const idbRead = await guarded('IndexedDB read', () => idbRoundTrip(files));
    const sha256 = await timed('sha256', async () => {
      for (const f of files) await crypto.subtle.digest('SHA-256', f);
    });
    const inflated: Uint8Array<ArrayBuffer>[] = [];
    const gunzip = await timed('gunzip', async () => {
      for (const f of files) {
        const stream = new Blob([f]).stream().pipeThrough(new DecompressionStream('gzip'));
        inflated.push(new Uint8Array(await new Response(stream).arrayBuffer()));
      }
    });
    const idbReadInflated = await guarded('IndexedDB read (inflated)', () => idbRoundTrip(inflated));
    const sha256Inflated = await timed('sha256 (inflated)', async () => {
      for (const f of inflated) await crypto.subtle.digest('SHA-256', f);
    });
    return { idbRead, sha256, gunzip, idbReadInflated, sha256Inflated, errors };
  },
  dispose() {
    service?.dispose();
    service = null;
  },
};

/** Writes the files to a scratch database in one transaction, then times reading them back. */
async function idbRoundTrip(files: Uint8Array[]): Promise<number> {
  const name = 'harel-bench-floor';
  const request = <T>(r: IDBRequest<T>) => new Promise<T>((resolve, reject) => ((r.onsuccess = () => resolve(r.result)), (r.onerror = () => reject(r.error))));
  // A transaction that fails at commit (quota) only aborts: listen for both.
  const done = (tx: IDBTransaction) =>
    new Promise<void>((resolve, reject) => ((tx.oncomplete = () => resolve()), (tx.onerror = tx.onabort = () => reject(tx.error ?? new Error('transaction aborted')))));
  await request(indexedDB.deleteDatabase(name)).catch(() => undefined);
  const open = indexedDB.open(name, 1);
  open.onupgradeneeded = () => open.result.createObjectStore('files');
  const db = await request(open);
  try {
    const write = db.transaction('files', 'readwrite');
    // As the widget stores a build: one record holding every file.
    write.objectStore('files').put({ files }, 'build');
    await done(write);
    const started = performance.now();
    const read = db.transaction('files', 'readonly');
    await request(read.objectStore('files').get('build'));
    return performance.now() - started;
  } finally {
    db.close();
    await request(indexedDB.deleteDatabase(name)).catch(() => undefined);
  }
}
