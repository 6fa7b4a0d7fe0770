/**
 * Every request the crawl sends goes through here: a clear User-Agent, robots.txt read once per
 * origin (its Crawl-delay slowing that host), the host scheduler's rate and concurrency limits,
 * and retries with backoff for failures that pass (5xx, 429, timeouts, dropped connections).
 */
import { createError, isHarelError, type HarelError } from '../errors.ts';
import { backoffDelay, isRetryableError, isRetryableStatus, type BackoffPolicy } from './backoff.ts';
import { HostScheduler, systemClock, type Clock } from './host-scheduler.ts';
import { httpGet, type HttpResponse } from './http-fetch.ts';
import { normalizeUrl } from './normalize-url.ts';
import { disallowAll, robotsFromStatus, type RobotsRules } from './robots.ts';

export interface PoliteFetcherOptions {
  userAgent: string;
  concurrency: number;
  /** Least time between two requests to one host; a longer robots.txt Crawl-delay wins. */
  delayMs: number;
  timeoutMs: number;
  maxBytes: number;
  backoff: BackoffPolicy;
  clock?: Clock;
  signal?: AbortSignal;
  /** Called before each retry, for the log. */
  onRetry?: (url: string, attempt: number, waitMs: number, why: string) => void;
}

export interface GetOptions {
  headers?: Record<string, string>;
  wantsBody(contentType: string): boolean;
}

/** Redirects followed for robots.txt and sitemaps (RFC 9309 asks for at least five). */
const AUXILIARY_REDIRECTS = 5;

export class PoliteFetcher {
  readonly #options: PoliteFetcherOptions;
  readonly #clock: Clock;
  readonly #scheduler: HostScheduler;
  readonly #robots = new Map<string, Promise<RobotsRules>>();
  /** Requests actually sent, retries included. */
  requests = 0;

  constructor(options: PoliteFetcherOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#scheduler = new HostScheduler({ concurrency: options.concurrency, clock: this.#clock });
  }

  /** The robots.txt rules of `origin`, fetched on first use. */
  robots(origin: string): Promise<RobotsRules> {
    let rules = this.#robots.get(origin);
    if (!rules) {
      rules = this.#loadRobots(origin);
      this.#robots.set(origin, rules);
    }
    return rules;
  }

  /** One GET with retries; redirects come back as values for the caller to follow. */
  async get(url: string, options: GetOptions): Promise<HttpResponse> {
    const { backoff } = this.#options;
    for (let attempt = 0; ; attempt++) {
      let response: HttpResponse;
      try {
        response = await this.#send(url, options);
      } catch (error) {
        const failure = error as HarelError;
        if (!isHarelError(error) || !isRetryableError(failure.code) || attempt >= backoff.retries) throw error;
        await this.#wait(url, attempt + 1, null, failure.code);
        continue;
      }
      if (response.kind !== 'error' || !isRetryableStatus(response.status) || attempt >= backoff.retries) return response;
      await this.#wait(url, attempt + 1, response.retryAfterMs, `HTTP ${response.status}`);
    }
  }

  /** A small text resource (robots.txt, a sitemap) with redirects followed: its final status and bytes. */
  async getFollowing(url: string): Promise<{ status: number; url: string; contentType: string | null; body: Uint8Array }> {
    let current = url;
    for (let hop = 0; hop <= AUXILIARY_REDIRECTS; hop++) {
      const response = await this.get(current, { wantsBody: () => true });
      if (response.kind === 'redirect') {
        const next = normalizeUrl(response.location, current);
        if (!next) break;
        current = next;
        continue;
      }
      if (response.kind === 'body') return { status: response.status, url: current, contentType: response.contentType, body: response.body };
      return { status: response.status, url: current, contentType: null, body: new Uint8Array(0) };
    }
    return { status: 310, url: current, contentType: null, body: new Uint8Array(0) };
  }

  async #send(url: string, options: GetOptions): Promise<HttpResponse> {
    const { userAgent, timeoutMs, maxBytes, signal } = this.#options;
    const host = new URL(url).host;
    let release: () => void;
    try {
      release = await this.#scheduler.acquire(host, signal);
    } catch {
      throw createError('ABORTED');
    }
    try {
      this.requests++;
      return await httpGet({
        url,
        headers: { 'user-agent': userAgent, accept: 'text/html,application/xhtml+xml,application/pdf;q=0.9,*/*;q=0.8', ...options.headers },
        timeoutMs,
        maxBytes,
        wantsBody: options.wantsBody,
        signal,
      });
    } finally {
      release();
    }
  }

  async #wait(url: string, attempt: number, retryAfterMs: number | null, why: string): Promise<void> {
    const waitMs = backoffDelay(this.#options.backoff, attempt, retryAfterMs);
    this.#options.onRetry?.(url, attempt, waitMs, why);
    try {
      await this.#clock.sleep(waitMs, this.#options.signal);
    } catch {
      throw createError('ABORTED');
    }
  }

  async #loadRobots(origin: string): Promise<RobotsRules> {
    const host = new URL(origin).host;
    this.#scheduler.setInterval(host, this.#options.delayMs);
    let rules: RobotsRules;
    try {
      const robotsUrl = `${origin}/robots.txt`;
      const response = await this.getFollowing(robotsUrl);
      // Parsed as robotsUrl's even after a redirect (http → https, a www. host): the rules are this
      // origin's, and robots-parser ignores rules for URLs of any other origin.
      rules = robotsFromStatus(robotsUrl, response.status, new TextDecoder().decode(response.body));
    } catch (error) {
      if (isHarelError(error, 'ABORTED')) throw error;
      rules = disallowAll(error instanceof Error ? error.message : String(error));
    }
    this.#scheduler.setInterval(host, Math.max(this.#options.delayMs, rules.crawlDelayMs ?? 0));
    return rules;
  }
}
