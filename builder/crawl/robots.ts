/**
 * robots.txt, read once per origin. Matching (groups, longest rule, `*` and `$`, percent-encoded
 * paths) is robots-parser's, a small, well-kept library; this file adds what RFC 9309 asks of a
 * crawler around it: a 4xx means no rules, an unreachable robots.txt means crawl nothing.
 */
import robotsParser from 'robots-parser';

export interface RobotsRules {
  isAllowed(url: string): boolean;
  /** The `Crawl-delay` for our user agent in milliseconds, when the site sets one. */
  crawlDelayMs: number | undefined;
  /** `Sitemap:` lines, absolute URLs. */
  sitemaps: string[];
  /** Why everything is refused (robots.txt unreachable), for the summary; null otherwise. */
  refusal: string | null;
}

/** The token matched against `User-agent:` lines. */
export const ROBOTS_AGENT = 'harel-builder';

export function allowAll(): RobotsRules {
  return { isAllowed: () => true, crawlDelayMs: undefined, sitemaps: [], refusal: null };
}

export function disallowAll(reason: string): RobotsRules {
  return { isAllowed: () => false, crawlDelayMs: undefined, sitemaps: [], refusal: reason };
}

/** Rules from robots.txt text served at `robotsUrl`. */
export function parseRobots(robotsUrl: string, text: string): RobotsRules {
  const robots = robotsParser(robotsUrl, text);
  const delay = robots.getCrawlDelay(ROBOTS_AGENT);
  return {
    // robots-parser answers undefined for URLs of another origin; those never reach here.
    isAllowed: (url) => robots.isAllowed(url, ROBOTS_AGENT) !== false,
    crawlDelayMs: typeof delay === 'number' && Number.isFinite(delay) && delay > 0 ? delay * 1000 : undefined,
    sitemaps: robots.getSitemaps(),
    refusal: null,
  };
}

/** RFC 9309 §2.3.1: what the final status of fetching robots.txt means for the crawl. */
export function robotsFromStatus(robotsUrl: string, status: number, text: string): RobotsRules {
  if (status >= 200 && status < 300) return parseRobots(robotsUrl, text);
  if (status >= 400 && status < 500) return allowAll();
  return disallowAll(`HTTP ${status}`);
}
