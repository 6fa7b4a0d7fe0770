/**
 * Which URLs a crawl may fetch. Without a boundary a crawler started on `/insurance/car` walks
 * the whole site (and any site it links to); the start URLs draw that boundary, and
 * `--include` / `--exclude` patterns refine it.
 *
 * Pattern syntax (both options), matched against the URL's decoded path and query
 * (`/ביטוח/רכב?page=2`), case-sensitively:
 * - `*` matches any run of characters except `/`; `**` matches anything, `/` included;
 *   every other character, `?` included, is literal.
 * - A pattern starting with `/` is anchored at the start of the path and implicitly ends with
 *   `**`: `/he/private` matches `/he/private`, `/he/private/x` and also `/he/private-2`
 *   (write `/he/private/` to keep only what is below it).
 * - Any other pattern may match anywhere: `*.pdf` or `print=1`.
 * - Hebrew may be written raw or percent-encoded; both match the encoded URL.
 */
import { createError } from '../errors.ts';
import { decodePercent, normalizeUrl } from './normalize-url.ts';

export interface ScopeOptions {
  startUrls: string[];
  include?: string[];
  exclude?: string[];
}

export type FetchKind = 'page' | 'document';

export interface Scope {
  /**
   * null when in scope, else a short reason: 'not an http(s) URL' | 'other host' |
   * 'outside start paths' | 'excluded by --exclude <pattern>' | 'not matched by --include'.
   */
  check(url: string, kind: FetchKind): string | null;
  /** The start URLs' origins (`https://www.example.co.il`), without repeats. */
  readonly hosts: string[];
  /**
   * Adds a start URL: where a start URL redirects to (`example.co.il` → `www.example.co.il`),
   * which the user meant as much as what they typed.
   */
  addStart(url: string): void;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function globToRegExp(pattern: string): RegExp {
  const glob = decodePercent(pattern.trim());
  const body = glob
    .split(/(\*\*|\*)/)
    .map((part) => (part === '**' ? '.*' : part === '*' ? '[^/]*' : escapeRegExp(part)))
    .join('');
  // No `$`: an anchored pattern implicitly ends with `**`; an unanchored one may sit anywhere.
  return new RegExp(glob.startsWith('/') ? `^${body}` : body);
}

function compilePattern(option: string, pattern: string): RegExp {
  if (pattern.trim() === '') throw createError('BAD_ARGUMENT', `${option} needs a pattern such as /he/private or *.pdf.`);
  return globToRegExp(pattern);
}

/** The decoded path and query of a normalised URL: what patterns are matched against. */
function matchSubject(normalized: string): string {
  const url = new URL(normalized);
  return decodePercent(url.pathname + url.search);
}

/** A matcher for one pattern, taking full URLs (exported for tests). */
export function pathPattern(pattern: string): (url: string) => boolean {
  const regExp = compilePattern('A pattern', pattern);
  return (url) => {
    const normalized = normalizeUrl(url);
    return normalized !== null && regExp.test(matchSubject(normalized));
  };
}

/** True when `path` is `prefix` or below it, on a segment boundary (`/a/b` is not under `/a/bc`). */
function isUnder(path: string, prefix: string): boolean {
  return prefix === '/' || path === prefix || path.startsWith(`${prefix}/`);
}

/** Start paths per origin. */
function startPrefixes(startUrls: readonly string[]): Map<string, string[]> {
  const byOrigin = new Map<string, string[]>();
  for (const start of startUrls) {
    const normalized = normalizeUrl(start.trim());
    if (normalized === null) throw createError('BAD_ARGUMENT', `"${start}" is not an http(s) URL.`);
    const url = new URL(normalized);
    byOrigin.set(url.origin, [...(byOrigin.get(url.origin) ?? []), url.pathname]);
  }
  return byOrigin;
}

export function createScope(options: ScopeOptions): Scope {
  const prefixes = startPrefixes(options.startUrls);
  const include = (options.include ?? []).map((pattern) => ({ pattern, regExp: compilePattern('--include', pattern) }));
  const exclude = (options.exclude ?? []).map((pattern) => ({ pattern, regExp: compilePattern('--exclude', pattern) }));

  function check(url: string, kind: FetchKind): string | null {
    const normalized = normalizeUrl(url);
    if (normalized === null) return 'not an http(s) URL';
    const parsed = new URL(normalized);
    const paths = prefixes.get(parsed.origin);
    if (paths === undefined) return 'other host';
    // Documents are exempt: sites keep PDFs in media folders outside the page tree.
    if (kind === 'page' && !paths.some((prefix) => isUnder(parsed.pathname, prefix))) return 'outside start paths';
    const subject = matchSubject(normalized);
    const excludedBy = exclude.find(({ regExp }) => regExp.test(subject));
    if (excludedBy) return `excluded by --exclude ${excludedBy.pattern}`;
    if (include.length > 0 && !include.some(({ regExp }) => regExp.test(subject))) return 'not matched by --include';
    return null;
  }

  function addStart(url: string): void {
    for (const [origin, paths] of startPrefixes([url])) prefixes.set(origin, [...(prefixes.get(origin) ?? []), ...paths]);
  }

  return {
    check,
    get hosts() {
      return [...prefixes.keys()];
    },
    addStart,
  };
}
