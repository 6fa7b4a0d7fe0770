/**
 * The one rule for a document's `url`, the address a citation's "open source" link points at.
 * Shared by the builder, which applies it when it reads a manifest, a crawl or a page JSON (and
 * reports what it dropped), and by the widget, which applies it again when it renders a link,
 * since an index can be hand-edited or published by someone hostile.
 *
 * Accepted:
 * - absolute `http:` and `https:` URLs (any letter case; `//host/path` too, which takes the page's
 *   scheme), without a user name or password (`https://insurer.example@evil.example/`);
 * - relative references (`/policies/car.pdf`, `files/car.pdf`, `?id=3`). The builder keeps them
 *   as written; the widget resolves them against the page's base URL (`document.baseURI`), exactly
 *   as any other link on that page would be, and links only when the result is http(s).
 *
 * Dropped, with a reason: every other scheme (`javascript:`, `data:`, `vbscript:`, `blob:`,
 * `file:`, `mailto:`…), and anything a browser or a later reader could turn into one:
 * - ASCII tabs and line breaks anywhere (the URL parser deletes them: `java\tscript:` is
 *   `javascript:`), and any other control, bidi, zero-width or non-space white-space character
 *   (`\u0000`, `\u0085`, `\u202E`, `\u200B`, NBSP); a legitimate address has none. C0 controls and
 *   spaces at the two ends are trimmed first, as the URL parser does itself;
 * - HTML character references that spell a scheme (`&#106;avascript:`, `javascript&colon;`): the
 *   widget never decodes them (Lit sets attributes as written), but a copy of the index rendered
 *   by other code might, so the decoded form must pass too. `&amp;` in a query decodes to an
 *   https URL and passes;
 * - percent-escapes that spell a scheme once decoded (`javascript%3Aalert(1)`, `%6Aavascript:`),
 *   for the same reason.
 *
 * A URL is never rewritten to make it pass: the link is dropped and the citation still shows the
 * document's title and page.
 */

export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

/** WHATWG's scheme-start state: a letter, then letters, digits, `+`, `-`, `.`, then `:`. */
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
const ALLOWED_SCHEMES = new Set(['http', 'https']);
/** What the URL parser trims at both ends: C0 controls and space. */
const EDGES = /^[\u0000-\u0020]+|[\u0000-\u0020]+$/g;
/**
 * Inside: C0 and C1 controls, DEL, soft hyphen, bidi marks, embeddings, overrides and isolates,
 * zero-width and invisible characters, the line and paragraph separators, and white space other
 * than the plain space (which the URL parser escapes as %20).
 */
// biome-ignore lint/suspicious/noMisleadingCharacterClass: the class lists invisible characters one by one (variation selectors, fillers) on purpose; none is meant to combine.
const FORBIDDEN = /[\u0000-\u001F\u007F-\u009F\u00AD\u061C\u115F\u1160\u17B4\u17B5\u180B-\u180F\u200B-\u200F\u2028-\u202E\u2060-\u206F\u3164\uFE00-\uFE0F\uFEFF\uFFA0\uFFF0-\uFFFB]|[^\S ]/u;

const NAMED_REFERENCES: Record<string, string> = {
  colon: ':',
  tab: '\t',
  newline: '\n',
  amp: '&',
  sol: '/',
  bsol: '\\',
  period: '.',
  quest: '?',
  num: '#',
  percnt: '%',
  lpar: '(',
  rpar: ')',
  semi: ';',
  comma: ',',
  excl: '!',
  equals: '=',
  plus: '+',
  lowbar: '_',
  hyphen: '-',
  dash: '-',
  quot: '"',
  apos: "'",
  lt: '<',
  gt: '>',
  nbsp: '\u00A0',
  grave: '`',
  commat: '@',
};
/** Decimal, hex and named references, the final `;` optional as HTML's parser allows. */
const CHARACTER_REFERENCE = /&(?:#(\d{1,8})|#x([0-9a-f]{1,7})|([a-z][a-z0-9]{1,31}));?/gi;

function decodeReferences(text: string): string {
  return text.replace(CHARACTER_REFERENCE, (whole, decimal?: string, hex?: string, name?: string) => {
    if (name !== undefined) return NAMED_REFERENCES[name.toLowerCase()] ?? whole;
    const code = decimal !== undefined ? Number.parseInt(decimal, 10) : Number.parseInt(hex!, 16);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

/** ASCII escapes only (`%6A` → `j`): enough to read a scheme, and never throws on a stray `%`. */
function decodeAsciiEscapes(text: string): string {
  return text.replace(/%([0-7][0-9a-f])/gi, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
}

/** Absolute with an allowed scheme, or relative; no hidden characters; no credentials. */
function checkForm(url: string): string | null {
  if (FORBIDDEN.test(url)) return 'contains control, invisible or white-space characters';
  const scheme = SCHEME.exec(url)?.[1].toLowerCase();
  if (scheme !== undefined && !ALLOWED_SCHEMES.has(scheme)) return `the "${scheme}:" scheme is not http or https`;
  let parsed: URL;
  try {
    // A relative reference is parsed against a stand-in http(s) page: only its form matters here.
    parsed = new URL(url, 'https://page.invalid/');
  } catch {
    return 'not a valid URL';
  }
  if (!ALLOWED_SCHEMES.has(parsed.protocol.slice(0, -1))) return `the "${parsed.protocol}" scheme is not http or https`;
  if (parsed.username || parsed.password) return 'carries a user name or password';
  return null;
}

/**
 * The policy's verdict on `value` (anything: a manifest or an index may hold any JSON). On `ok`,
 * `url` is the value with C0 controls and spaces trimmed from its ends, otherwise as written.
 * Empty and missing values are not URLs to drop: the caller treats them as "no URL".
 */
export function checkSourceUrl(value: unknown): UrlCheck {
  if (typeof value !== 'string') return { ok: false, reason: 'not a string' };
  const url = value.replace(EDGES, '');
  if (url === '') return { ok: false, reason: 'empty' };
  const own = checkForm(url);
  if (own) return { ok: false, reason: own };
  // Every decoded reading must pass as well; decoding repeats while it changes something
  // (`&amp;#106;` is `&#106;` is `j`), a few rounds at most.
  let previous = url;
  for (let round = 0; round < 4; round++) {
    const decoded = decodeAsciiEscapes(decodeReferences(previous));
    if (decoded === previous) break;
    // Read as the URL parser would read it: tabs and line breaks deleted, the ends trimmed.
    const reading = decoded.replace(/[\t\n\r]/g, '').replace(EDGES, '');
    const hidden = SCHEME.exec(reading)?.[1].toLowerCase();
    if (hidden !== undefined && !ALLOWED_SCHEMES.has(hidden)) return { ok: false, reason: `decodes to the "${hidden}:" scheme` };
    previous = decoded;
  }
  return { ok: true, url };
}

/** The URL the policy keeps, or null (for callers that need no reason). */
export function safeSourceUrl(value: unknown): string | null {
  const check = checkSourceUrl(value);
  return check.ok ? check.url : null;
}

/**
 * What a link's `href` may be: `value` checked by the policy and resolved against `base` (the
 * page's `document.baseURI`), as an absolute http(s) URL; null when the policy drops it, when it
 * is relative and there is no base, or when the base turns it into another scheme (a page opened
 * from `file:`).
 */
export function resolveSourceUrl(value: unknown, base: string | undefined): string | null {
  const check = checkSourceUrl(value);
  if (!check.ok) return null;
  let resolved: URL;
  try {
    resolved = base === undefined ? new URL(check.url) : new URL(check.url, base);
  } catch {
    return null;
  }
  if (!ALLOWED_SCHEMES.has(resolved.protocol.slice(0, -1)) || resolved.username || resolved.password) return null;
  return resolved.href;
}
