/**
 * What `crawl` can be told, and the defaults a polite crawl of a real site uses. Tests shorten
 * the waits; nothing else differs between a test crawl and a real one.
 */
import type { WorkOptions } from '../../widget/core/schema.ts';
import { BUILDER_VERSION } from '../version.ts';
import type { UrlOutcome } from './crawl-record.ts';
import type { DomainRule } from './domain-map.ts';
import type { Clock } from './host-scheduler.ts';

export interface CrawlOptions extends WorkOptions {
  startUrls: string[];
  outDir: string;
  include?: string[];
  exclude?: string[];
  /** URLs fetched at most (pages and documents; robots.txt refusals do not count). */
  maxPages?: number;
  /** Links followed from a start URL or a sitemap entry, at most. */
  maxDepth?: number;
  concurrency?: number;
  /** Least time between two requests to one host; a longer robots.txt Crawl-delay wins. */
  delayMs?: number;
  /** Whole-request timeout, body included. */
  timeoutMs?: number;
  /** How long a page may keep the network busy before it is read anyway. */
  renderTimeoutMs?: number;
  /** Downloads larger than this are refused. */
  maxBytes?: number;
  retries?: number;
  /** First retry's wait; it doubles with each retry. */
  retryBaseMs?: number;
  domainRules?: DomainRule[];
  userAgent?: string;
  /** Read sitemap.xml (and those robots.txt names) for URLs links do not reach. */
  sitemaps?: boolean;
  /** Run pages' JavaScript in Chromium (the default); false saves the HTML as served. */
  render?: boolean;
  browserPath?: string;
  /** Forget the previous and any unfinished crawl in this folder. */
  fresh?: boolean;
  clock?: Clock;
  log?: (message: string) => void;
  /** Called after each URL's outcome is recorded. */
  onOutcome?: (url: string, outcome: UrlOutcome) => void;
}

export const CRAWLER_USER_AGENT = `Mozilla/5.0 (compatible; harel-builder/${BUILDER_VERSION}; site search indexer)`;

export const CRAWL_DEFAULTS = {
  maxPages: 5000,
  maxDepth: 10,
  concurrency: 2,
  delayMs: 1000,
  timeoutMs: 30_000,
  renderTimeoutMs: 15_000,
  maxBytes: 50 * 1024 * 1024,
  retries: 3,
  retryBaseMs: 1000,
} as const;
