/**
 * Sitemaps (sitemaps.org): the URL lists a site publishes for crawlers, often the only way to
 * find pages that no menu links to. Read with a small scanner rather than an XML parser: the
 * format is flat with a fixed vocabulary (`url`/`sitemap` blocks holding `loc` and `lastmod`),
 * real-world files are often slightly broken, and a parser dependency would buy nothing but a
 * strictness we would then have to work around.
 */
import { gunzipSync } from 'node:zlib';
import { createError } from '../errors.ts';

export interface SitemapEntries {
  urls: { loc: string; lastmod?: string }[];
  /** Child sitemaps listed by a `<sitemapindex>`. */
  sitemaps: string[];
}

/** The protocol caps a sitemap at 50 MB uncompressed; the margin tolerates sloppy sites, the cap stops gzip bombs. */
const MAX_UNCOMPRESSED_BYTES = 64 * 1024 * 1024;

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#[xX][0-9A-Fa-f]+|#[0-9]+|[A-Za-z]+);/g, (whole, name: string) => {
    if (!name.startsWith('#')) return NAMED_ENTITIES[name] ?? whole;
    const code = /^#x/i.test(name) ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** Element text: CDATA sections taken verbatim, the rest entity-decoded, outer whitespace trimmed. */
function elementText(raw: string): string {
  return raw
    .split(/(<!\[CDATA\[[\s\S]*?\]\]>)/)
    .map((part) => (part.startsWith('<![CDATA[') ? part.slice(9, -3) : decodeEntities(part)))
    .join('')
    .trim();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * The text of the first `<prefix:name>` in `block`. The prefix must be the block's own, so an
 * image sitemap's `<image:loc>` inside a `<url>` is not taken for the page's `<loc>`.
 */
function childText(block: string, prefix: string, name: string): string | undefined {
  const tag = `${escapeRegExp(prefix)}${name}`;
  const match = new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}\\s*>`).exec(block);
  const text = match ? elementText(match[1]) : '';
  return text === '' ? undefined : text;
}

/**
 * Each `<url>` or `<sitemap>` block runs to the next one's start, not to its closing tag, so a
 * file cut off mid-way still yields every complete `<loc>` before the cut.
 */
function* blocks(xml: string): Generator<{ kind: string; prefix: string; body: string }> {
  const opening = /<((?:[\w.-]+:)?)(url|sitemap)(?=[\s/>])[^>]*>/g;
  const starts = [...xml.matchAll(opening)];
  for (const [i, start] of starts.entries()) {
    const end = i + 1 < starts.length ? starts[i + 1].index : xml.length;
    yield { kind: start[2], prefix: start[1], body: xml.slice(start.index + start[0].length, end) };
  }
}

/** The URLs and child sitemaps in a sitemap document. Never throws: broken XML yields what was readable. */
export function parseSitemap(xml: string): SitemapEntries {
  const entries: SitemapEntries = { urls: [], sitemaps: [] };
  const text = xml.replace(/^\uFEFF/, '').replace(/<!--[\s\S]*?-->/g, '');
  for (const { kind, prefix, body } of blocks(text)) {
    const loc = childText(body, prefix, 'loc');
    if (loc === undefined) continue;
    if (kind === 'sitemap') {
      entries.sitemaps.push(loc);
      continue;
    }
    const lastmod = childText(body, prefix, 'lastmod');
    entries.urls.push(lastmod === undefined ? { loc } : { loc, lastmod });
  }
  return entries;
}

function isGzip(body: Uint8Array): boolean {
  return body.length >= 2 && body[0] === 0x1f && body[1] === 0x8b;
}

/** The `charset` of a Content-Type header when this runtime can decode it, else UTF-8 (what the protocol requires). */
function charsetOf(contentType: string | null): string {
  const label = /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType ?? '')?.[1];
  if (label === undefined) return 'utf-8';
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return 'utf-8';
  }
}

/**
 * The text of a fetched sitemap. A `.gz` URL or a gzip Content-Type is not trusted: fetch undoes
 * a `Content-Encoding: gzip` on its own, so such bodies often arrive already plain; the gzip
 * magic bytes decide. Throws CRAWL_SITEMAP_UNREADABLE for a corrupt or oversized gzip body.
 */
export function decodeSitemapBody(body: Uint8Array, contentType: string | null, url: string): string {
  if (!isGzip(body)) return new TextDecoder(charsetOf(contentType)).decode(body);
  try {
    // A gzip file's own Content-Type says nothing about the text inside: that is UTF-8.
    return new TextDecoder('utf-8').decode(gunzipSync(body, { maxOutputLength: MAX_UNCOMPRESSED_BYTES }));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw createError('CRAWL_SITEMAP_UNREADABLE', url, `gzip: ${reason}`);
  }
}
