/**
 * One canonical spelling per crawlable URL. A site links the same page as `/ביטוח/`,
 * `/%d7%91…`, `/%D7%91…?utm_source=x#top` and `//ביטוח`; the crawler must see one URL, or it
 * fetches (and indexes) the page several times. Only rewrites that cannot change what a server
 * returns are made, plus dropping tracking parameters, which by design do not change the page.
 */

/**
 * Query parameters dropped before a URL is compared or saved; matched case-insensitively, and a
 * trailing `*` means "any name starting with".
 */
export const TRACKING_PARAMETERS: readonly string[] = [
  'utm_*',
  'gclid',
  'gclsrc',
  'dclid',
  'fbclid',
  'msclkid',
  'yclid',
  'igshid',
  'mc_cid',
  'mc_eid',
  '_ga',
  '_gl',
  '_hsenc',
  '_hsmi',
  'mkt_tok',
  'srsltid',
];

const TRACKING_NAMES = new Set(TRACKING_PARAMETERS.filter((name) => !name.endsWith('*')));
const TRACKING_PREFIXES = TRACKING_PARAMETERS.filter((name) => name.endsWith('*')).map((name) => name.slice(0, -1));

/** RFC 3986 §2.3: escaping these never changes meaning, so their escapes are decoded. */
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * Decodes escapes of unreserved characters and upper-cases the hex of the rest. Non-ASCII text is
 * already UTF-8 escaped by `URL`, so after this raw, lower- and upper-hex Hebrew all agree.
 */
function normalizeEscapes(text: string): string {
  return text.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => {
    const char = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(char) ? char : `%${hex.toUpperCase()}`;
  });
}

function normalizePath(pathname: string): string {
  const path = normalizeEscapes(pathname.replace(/\/{2,}/g, '/'));
  return path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
}

function parameterName(parameter: string): string {
  const eq = parameter.indexOf('=');
  return eq < 0 ? parameter : parameter.slice(0, eq);
}

function isTracking(rawName: string): boolean {
  let name = rawName;
  try {
    name = decodeURIComponent(rawName.replace(/\+/g, ' '));
  } catch {
    // A malformed escape cannot spell a tracking name; compare it as written.
  }
  name = name.toLowerCase();
  return TRACKING_NAMES.has(name) || TRACKING_PREFIXES.some((prefix) => name.startsWith(prefix));
}

/**
 * Works on the raw query rather than URLSearchParams, which would rewrite `+`, `%20` and bare
 * keys (`?print` → `?print=`) and so change what some servers see.
 */
function normalizeQuery(search: string): string {
  const parameters = search
    .replace(/^\?/, '')
    .split('&')
    .filter((parameter) => parameter !== '')
    .map(normalizeEscapes)
    .filter((parameter) => !isTracking(parameterName(parameter)));
  if (parameters.length === 0) return '';
  // Array.prototype.sort is stable: repeated keys (`?a=2&a=1`) keep their order, which matters.
  parameters.sort((a, b) => compareCodeUnits(parameterName(a), parameterName(b)));
  return `?${parameters.join('&')}`;
}

/** Locale-independent, so the same crawl sorts the same way on every machine. */
function compareCodeUnits(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

function parseHttp(href: string, base?: string): URL | null {
  try {
    const url = new URL(href, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}

/**
 * `href` resolved against `base` and normalised, or null when it is not an http(s) URL
 * (mailto:, tel:, javascript:, data:, blob:, or unparsable).
 */
export function normalizeUrl(href: string, base?: string): string | null {
  const url = parseHttp(href, base);
  if (url === null) return null;
  const credentials = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  // `URL` has already lower-cased scheme and host, dropped default ports and resolved dot segments.
  return `${url.protocol}//${credentials}${url.host}${normalizePath(url.pathname)}${normalizeQuery(url.search)}`;
}

/**
 * Percent-decodes every run of escapes that is valid UTF-8, leaving invalid runs and escaped
 * reserved characters (`%2F`, `%3F`, `%26`…) as written, so the result stays unambiguous.
 */
export function decodePercent(text: string): string {
  return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURI(run);
    } catch {
      return run;
    }
  });
}

/**
 * `url` for people: Hebrew and other escaped text readable. Also accepts a bare path
 * (`/%D7%91…`). Escapes that are not valid UTF-8 are shown as written.
 */
export function displayUrl(url: string): string {
  // The scheme and host of a normalised URL hold no escapes, so decoding the whole string only
  // touches the path and query.
  return decodePercent(url);
}
