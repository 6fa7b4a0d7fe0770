/**
 * URLs a site lists in its sitemaps: those robots.txt names, or `/sitemap.xml` when it names
 * none, with sitemap indexes followed. Pages only reachable through a search box or a script
 * are often listed here and nowhere else.
 */
import { isHarelError } from '../errors.ts';
import type { PoliteFetcher } from './polite-fetcher.ts';
import { normalizeUrl } from './normalize-url.ts';
import { decodeSitemapBody, parseSitemap } from './sitemap.ts';

/** Sitemap files read per origin at most: an index of indexes should not become a crawl of its own. */
const MAX_SITEMAPS = 50;

export async function discoverSitemapUrls(origin: string, fetcher: PoliteFetcher, log?: (message: string) => void): Promise<string[]> {
  const robots = await fetcher.robots(origin);
  const sameOrigin = (url: string | null): url is string => url !== null && new URL(url).origin === origin;
  const listed = robots.sitemaps.map((url) => normalizeUrl(url)).filter(sameOrigin);
  const pending = listed.length > 0 ? listed : [`${origin}/sitemap.xml`];
  const read = new Set<string>();
  const urls: string[] = [];
  while (pending.length > 0 && read.size < MAX_SITEMAPS) {
    const sitemapUrl = pending.shift()!;
    if (read.has(sitemapUrl) || !robots.isAllowed(sitemapUrl)) continue;
    read.add(sitemapUrl);
    try {
      const response = await fetcher.getFollowing(sitemapUrl);
      if (response.status !== 200) {
        // A missing default sitemap is normal; one robots.txt names is worth a word.
        if (listed.length > 0 || response.status !== 404) log?.(`sitemap ${sitemapUrl}: HTTP ${response.status}, skipped`);
        continue;
      }
      const entries = parseSitemap(decodeSitemapBody(response.body, response.contentType, response.url));
      for (const entry of entries.urls) urls.push(entry.loc);
      for (const nested of entries.sitemaps.map((url) => normalizeUrl(url, response.url)).filter(sameOrigin)) pending.push(nested);
    } catch (error) {
      if (isHarelError(error, 'ABORTED')) throw error;
      log?.(`sitemap ${sitemapUrl}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return urls;
}
