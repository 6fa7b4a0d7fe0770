/**
 * What the crawl knows about each URL: the queue entries and outcomes it journals, and the
 * manifest record of every saved file, in the shape `build` reads (builder/ingest/manifest.ts).
 */

export type UrlKind = 'page' | 'document';

export interface QueueItem {
  url: string;
  depth: number;
  kind: UrlKind;
  /** The page that linked here ('sitemap' or 'start' otherwise). */
  referrer: string;
  /** The linking page's domain: a PDF kept in a media folder belongs to the page's product. */
  referrerDomain?: string;
}

/** One saved file, keyed in manifest.json by `path` (relative to the output folder). */
export interface SavedRecord {
  path: string;
  /** The URL as first requested (normalised). */
  url: string;
  /** Where the content was finally served after redirects; citations link here. */
  finalUrl: string;
  domain: string;
  contentType: string;
  /** When the content was downloaded (an unchanged re-crawl keeps the original time). */
  fetchedAt: string;
  /** When the server last confirmed it (a 304 on a re-crawl). */
  checkedAt: string;
  etag: string | null;
  lastModified: string | null;
  sha256: string;
  bytes: number;
  /** Redirect hops before finalUrl, when there were any. */
  redirects?: string[];
}

export type UrlOutcome =
  /** Downloaded and saved: `change` says how it compares with the previous crawl. */
  | { status: 'saved'; change: 'new' | 'changed' | 'same'; record: SavedRecord; links: string[] }
  /** The server answered 304: the saved file is current. */
  | { status: 'unchanged'; record: SavedRecord; links: string[] }
  /** Same content as an already saved file (by sha256). */
  | { status: 'duplicate'; finalUrl: string; duplicateOf: string; redirects?: string[]; links: string[] }
  /** Redirected to a URL the crawl already has or will fetch on its own. */
  | { status: 'alias'; finalUrl: string; redirects: string[] }
  /** Not fetched or not saved by rule: robots.txt, out of scope after a redirect, a type that cannot be indexed. */
  | { status: 'skipped'; reason: string; code?: string }
  | { status: 'failed'; code: string; message: string; httpStatus?: number; permanent: boolean; redirects?: string[] };

export type JournalEvent =
  | { t: 'start'; at: string; startUrls: string[] }
  | { t: 'sitemaps'; at: string }
  | { t: 'queue'; item: QueueItem }
  | { t: 'done'; url: string; outcome: UrlOutcome }
  | { t: 'end'; at: string; reason: 'finished' | 'limit' };

/** The URLs an outcome accounts for besides the one requested (redirect hops and target). */
export function urlsCoveredBy(url: string, outcome: UrlOutcome): string[] {
  const covered = [url];
  if ('redirects' in outcome && outcome.redirects) covered.push(...outcome.redirects);
  if ('record' in outcome) covered.push(outcome.record.finalUrl);
  else if ('finalUrl' in outcome) covered.push(outcome.finalUrl);
  return covered;
}
