/**
 * `harel-builder crawl`: from start URLs, sitemaps and links to a folder `build` can index, with
 * every file traced to its URL in manifest.json. Breadth first, polite (robots.txt, per-host
 * rate, concurrency), resumable (the journal) and incremental (conditional requests).
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createError, isHarelError } from '../errors.ts';
import { CrawlJournal } from './crawl-journal.ts';
import { writeCrawlManifest } from './crawl-manifest.ts';
import { CRAWL_DEFAULTS, CRAWLER_USER_AGENT, type CrawlOptions } from './crawl-options.ts';
import { urlsCoveredBy, type QueueItem, type SavedRecord, type UrlOutcome } from './crawl-record.ts';
import { fetchItem, kindOfUrl, type ItemContext } from './fetch-item.ts';
import { SavedPathRegistry } from './file-names.ts';
import { normalizeUrl } from './normalize-url.ts';
import { createPageRenderer } from './page-renderer.ts';
import { PoliteFetcher } from './polite-fetcher.ts';
import { createScope, type Scope } from './scope.ts';
import { discoverSitemapUrls } from './sitemap-discovery.ts';

export type CrawlEnd = 'finished' | 'limit' | 'interrupted';

export interface CrawlSummary {
  outDir: string;
  resumed: boolean;
  end: CrawlEnd;
  ms: number;
  /** HTTP requests sent by the crawler itself (retries included, the browser's own not). */
  requests: number;
  /** Files listed in manifest.json now. */
  files: number;
  counts: {
    new: number;
    changed: number;
    /** Downloaded again (the server sent no validators) with the same content. */
    same: number;
    /** Answered 304 Not Modified. */
    unchanged: number;
    duplicate: number;
    alias: number;
    skipped: number;
    failed: number;
    /** Files of the previous crawl deleted because their URL is gone. */
    removed: number;
  };
  failures: { url: string; code: string; message: string; httpStatus?: number }[];
  skipped: { url: string; reason: string }[];
  /** Requested URL → where its redirects ended. */
  redirects: Record<string, string>;
}

const ROBOTS_REFUSAL = 'disallowed by robots.txt';

/** Whether an outcome cost the site a request (and so counts against --max-pages). */
function costsRequests(outcome: UrlOutcome): boolean {
  if (outcome.status === 'alias') return false;
  return !(outcome.status === 'skipped' && (outcome.reason === ROBOTS_REFUSAL || outcome.code === 'CRAWL_ROBOTS_UNREACHABLE'));
}

class CrawlRun {
  readonly #options: CrawlOptions;
  readonly #journal: CrawlJournal;
  readonly #context: ItemContext;
  readonly #maxPages: number;
  readonly #maxDepth: number;
  readonly #queue: QueueItem[] = [];
  #head = 0;
  readonly #seen = new Set<string>();
  readonly #outcomes = new Map<string, UrlOutcome>();
  /** Saved records of this crawl by saved path. */
  readonly #records = new Map<string, SavedRecord>();
  /** Items taken from the queue that count against --max-pages. */
  #started = 0;
  #finished = 0;
  #failed = 0;
  readonly #running = new Set<Promise<void>>();
  readonly #startTime = Date.now();
  readonly #startUrls: Set<string>;
  /** Origins whose sitemaps have been read. */
  readonly #sitemapOrigins = new Set<string>();

  constructor(options: CrawlOptions, journal: CrawlJournal, context: ItemContext, startUrls: string[]) {
    this.#startUrls = new Set(startUrls);
    this.#options = options;
    this.#journal = journal;
    this.#context = context;
    this.#maxPages = options.maxPages ?? CRAWL_DEFAULTS.maxPages;
    this.#maxDepth = options.maxDepth ?? CRAWL_DEFAULTS.maxDepth;
  }

  /** Picks up where the journal left off: its queue, its outcomes and its saved files. */
  restore(): void {
    const resumed = this.#journal.resumed;
    for (const record of this.#journal.prior.records.values()) this.#context.paths.claim(record.finalUrl, 'html', record.path);
    if (!resumed) return;
    for (const item of resumed.queued) this.#seen.add(item.url);
    for (const [url, outcome] of resumed.outcomes) this.#apply(url, outcome);
    if (resumed.sitemapsDone) for (const origin of this.#context.scope.hosts) this.#sitemapOrigins.add(origin);
    this.#queue.push(...resumed.queued.filter((item) => !resumed.outcomes.has(item.url)));
    this.#finished = resumed.outcomes.size;
    // --max-pages bounds the whole crawl, not each run of it.
    this.#started = [...resumed.outcomes.values()].filter(costsRequests).length;
  }

  enqueue(href: string, from: { depth: number; referrer: string; referrerDomain?: string }): void {
    const url = normalizeUrl(href);
    if (!url || this.#seen.has(url) || from.depth > this.#maxDepth) return;
    const kind = kindOfUrl(url);
    if (this.#context.scope.check(url, kind) !== null) return;
    this.#seen.add(url);
    const item: QueueItem = { url, depth: from.depth, kind, referrer: from.referrer, referrerDomain: from.referrerDomain };
    this.#journal.append({ t: 'queue', item });
    this.#queue.push(item);
  }

  async seed(startUrls: string[]): Promise<void> {
    const resumed = this.#journal.resumed;
    if (!resumed) for (const url of startUrls) this.enqueue(url, { depth: 0, referrer: 'start' });
    if (resumed?.sitemapsDone) return;
    await this.#readNewSitemaps();
    this.#journal.append({ t: 'sitemaps', at: new Date().toISOString() });
  }

  /** Reads the sitemaps of start origins not read yet (one a start URL redirected to, too). */
  async #readNewSitemaps(): Promise<void> {
    if (this.#options.sitemaps === false) return;
    for (const origin of this.#context.scope.hosts) {
      if (this.#sitemapOrigins.has(origin)) continue;
      this.#sitemapOrigins.add(origin);
      const found = await discoverSitemapUrls(origin, this.#context.fetcher, this.#options.log);
      for (const url of found) this.enqueue(url, { depth: 0, referrer: 'sitemap' });
    }
  }

  /** Runs the queue to its end, the page limit, or the signal. */
  async run(): Promise<CrawlEnd> {
    const concurrency = this.#options.concurrency ?? CRAWL_DEFAULTS.concurrency;
    const running = this.#running;
    let fatal: unknown = null;
    while (!this.#options.signal?.aborted && fatal === null) {
      while (running.size < concurrency && this.#head < this.#queue.length && this.#started < this.#maxPages) {
        const item = this.#queue[this.#head++];
        this.#started++;
        const task = this.#process(item)
          .catch((error: unknown) => {
            if (!isHarelError(error, 'ABORTED')) fatal ??= error;
          })
          .finally(() => running.delete(task));
        running.add(task);
      }
      if (running.size === 0) break;
      await Promise.race(running);
    }
    await Promise.allSettled(running);
    if (fatal !== null) throw fatal;
    if (this.#options.signal?.aborted) return 'interrupted';
    return this.#head < this.#queue.length ? 'limit' : 'finished';
  }

  async #process(item: QueueItem): Promise<void> {
    const known = this.#context.covered.get(item.url);
    if (known !== undefined) {
      this.#started--;
      return this.#finish(item, { status: 'alias', finalUrl: known, redirects: [item.url] });
    }
    const robots = await this.#context.fetcher.robots(new URL(item.url).origin);
    if (!robots.isAllowed(item.url)) {
      // A refusal costs no request, so it does not count against --max-pages.
      this.#started--;
      const origin = new URL(item.url).origin;
      const outcome: UrlOutcome = robots.refusal
        ? { status: 'skipped', code: 'CRAWL_ROBOTS_UNREACHABLE', reason: createError('CRAWL_ROBOTS_UNREACHABLE', origin, robots.refusal).message }
        : { status: 'skipped', reason: ROBOTS_REFUSAL };
      return this.#finish(item, outcome);
    }
    this.#finish(item, await fetchItem(item, this.#context));
    if (item.referrer === 'start') await this.#readNewSitemaps();
  }

  #finish(item: QueueItem, outcome: UrlOutcome): void {
    this.#journal.append({ t: 'done', url: item.url, outcome });
    this.#apply(item.url, outcome);
    if ('links' in outcome) {
      const referrerDomain = 'record' in outcome ? outcome.record.domain : undefined;
      const referrer = 'record' in outcome ? outcome.record.finalUrl : outcome.finalUrl;
      for (const link of outcome.links) this.enqueue(link, { depth: item.depth + 1, referrer, referrerDomain });
    }
    this.#finished++;
    this.#options.onOutcome?.(item.url, outcome);
    this.#reportProgress();
  }

  #apply(url: string, outcome: UrlOutcome): void {
    this.#outcomes.set(url, outcome);
    if (outcome.status === 'failed') this.#failed++;
    // Where a start URL redirected joins the scope (fetchItem did so on the way; again here for a
    // resumed crawl, whose scope is rebuilt from the command line).
    const finalUrl = 'record' in outcome ? outcome.record.finalUrl : 'finalUrl' in outcome ? outcome.finalUrl : null;
    if (finalUrl && this.#startUrls.has(url) && this.#context.scope.check(finalUrl, 'page') !== null) this.#context.scope.addStart(finalUrl);
    for (const covered of urlsCoveredBy(url, outcome)) this.#seen.add(covered);
    if (outcome.status !== 'saved' && outcome.status !== 'unchanged') return;
    const { record } = outcome;
    this.#records.set(record.path, record);
    this.#context.savedHashes.set(record.sha256, record.path);
    this.#context.paths.claim(record.finalUrl, 'html', record.path);
    for (const covered of urlsCoveredBy(url, outcome)) this.#context.covered.set(covered, record.finalUrl);
  }

  /** Pages done of all known (done, in flight, queued), with what is queued, failed and the rate. */
  #reportProgress(): void {
    const pending = this.#queue.length - this.#head;
    const minutes = (Date.now() - this.#startTime) / 60_000;
    const rate = minutes > 0 ? Math.round(this.#finished / minutes) : 0;
    this.#options.onProgress?.({
      step: 'crawl',
      done: this.#finished,
      // The task finishing now is still in the running set.
      total: this.#finished + Math.max(0, this.#running.size - 1) + pending,
      detail: `${pending} queued · ${this.#failed} failed · ${rate}/min`,
    });
  }

  /** Writes manifest.json; on a finished crawl, deletes the files of URLs that are gone. */
  async complete(end: CrawlEnd, startUrls: string[]): Promise<CrawlSummary> {
    const { outDir } = this.#options;
    const prior = this.#journal.prior.records;
    const manifestRecords = new Map(this.#records);
    const keptPaths = new Set(this.#records.keys());
    const gone: SavedRecord[] = [];
    for (const record of new Set(prior.values())) {
      if (keptPaths.has(record.path)) continue;
      const outcome = this.#outcomes.get(record.url) ?? this.#outcomes.get(record.finalUrl);
      // A file stays while its URL may still serve it: not reached because the crawl stopped
      // early, or failing for now (a timeout, a 5xx). A 404, a redirect elsewhere, a robots.txt
      // refusal, or no link to it any more in a finished crawl mean it is gone.
      const transientFailure = outcome?.status === 'failed' && !outcome.permanent;
      const mayStillServe = outcome === undefined ? end !== 'finished' : transientFailure;
      if (mayStillServe) manifestRecords.set(record.path, record);
      else gone.push(record);
    }
    for (const record of gone) await rm(join(outDir, record.path), { force: true });

    const summary = this.#summarize(end, manifestRecords.size, gone.length);
    await writeCrawlManifest(outDir, {
      startUrls,
      complete: end !== 'interrupted',
      records: manifestRecords.values(),
      redirects: summary.redirects,
      failures: summary.failures,
    });
    if (end !== 'interrupted') this.#journal.append({ t: 'end', at: new Date().toISOString(), reason: end });
    return summary;
  }

  #summarize(end: CrawlEnd, files: number, removed: number): CrawlSummary {
    const counts: CrawlSummary['counts'] = { new: 0, changed: 0, same: 0, unchanged: 0, duplicate: 0, alias: 0, skipped: 0, failed: 0, removed };
    const failures: CrawlSummary['failures'] = [];
    const skipped: CrawlSummary['skipped'] = [];
    const redirects: CrawlSummary['redirects'] = {};
    for (const [url, outcome] of this.#outcomes) {
      if (outcome.status === 'saved') counts[outcome.change]++;
      else counts[outcome.status]++;
      if (outcome.status === 'failed') failures.push({ url, code: outcome.code, message: outcome.message, httpStatus: outcome.httpStatus });
      if (outcome.status === 'skipped') skipped.push({ url, reason: outcome.reason });
      const finalUrl = 'record' in outcome ? outcome.record.finalUrl : 'finalUrl' in outcome ? outcome.finalUrl : url;
      if (finalUrl !== url) redirects[url] = finalUrl;
    }
    return {
      outDir: this.#options.outDir,
      resumed: this.#journal.resumed !== null,
      end,
      ms: Date.now() - this.#startTime,
      requests: this.#context.fetcher.requests,
      files,
      counts,
      failures,
      skipped,
      redirects,
    };
  }
}

function startUrlsOf(options: CrawlOptions): string[] {
  if (options.startUrls.length === 0) throw createError('BAD_ARGUMENT', 'crawl needs at least one start URL.');
  return options.startUrls.map((url) => {
    const normalized = normalizeUrl(url);
    if (!normalized) throw createError('BAD_ARGUMENT', `"${url}" is not an http(s) URL.`);
    return normalized;
  });
}

/** Crawls into `options.outDir`; continues an unfinished crawl there, re-checks a finished one. */
export async function crawl(options: CrawlOptions): Promise<CrawlSummary> {
  const startUrls = startUrlsOf(options);
  const scope: Scope = createScope({ startUrls, include: options.include, exclude: options.exclude });
  await mkdir(options.outDir, { recursive: true });
  const journal = await CrawlJournal.open(options.outDir, { fresh: Boolean(options.fresh), startUrls });
  const userAgent = options.userAgent ?? CRAWLER_USER_AGENT;
  const fetcher = new PoliteFetcher({
    userAgent,
    concurrency: options.concurrency ?? CRAWL_DEFAULTS.concurrency,
    delayMs: options.delayMs ?? CRAWL_DEFAULTS.delayMs,
    timeoutMs: options.timeoutMs ?? CRAWL_DEFAULTS.timeoutMs,
    maxBytes: options.maxBytes ?? CRAWL_DEFAULTS.maxBytes,
    backoff: { retries: options.retries ?? CRAWL_DEFAULTS.retries, baseMs: options.retryBaseMs ?? CRAWL_DEFAULTS.retryBaseMs, maxMs: 60_000 },
    clock: options.clock,
    signal: options.signal,
    onRetry: (url, attempt, waitMs, why) => options.log?.(`retry ${attempt} in ${(waitMs / 1000).toFixed(1)} s: ${url} (${why})`),
  });
  const renderer = options.render === false ? null : createPageRenderer({ browserPath: options.browserPath, userAgent, renderTimeoutMs: options.renderTimeoutMs ?? CRAWL_DEFAULTS.renderTimeoutMs });
  const run = new CrawlRun(
    options,
    journal,
    {
      outDir: options.outDir,
      fetcher,
      renderer,
      scope,
      domainRules: options.domainRules ?? [],
      paths: new SavedPathRegistry(),
      prior: journal.prior,
      covered: new Map(),
      savedHashes: new Map(),
      signal: options.signal,
    },
    startUrls,
  );
  try {
    run.restore();
    let end: CrawlEnd;
    try {
      await run.seed(startUrls);
      end = await run.run();
    } catch (error) {
      if (!isHarelError(error, 'ABORTED')) throw error;
      end = 'interrupted';
    }
    return await run.complete(end, startUrls);
  } finally {
    await renderer?.close();
  }
}
