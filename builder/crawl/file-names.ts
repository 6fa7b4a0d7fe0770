/**
 * Where a crawled URL is saved inside the output folder. Names stay readable (Hebrew paths are
 * decoded, so a developer can find `ביטוח/רכב.html` by eye) and every name is unique and legal
 * on Linux, macOS and Windows; the URL itself travels in manifest.json, never in the name.
 */
import { createHash } from 'node:crypto';

export type SavedKind = 'html' | 'pdf' | 'md' | 'txt';

/**
 * Characters no common file system accepts, and control characters; also `/`, which a decoded
 * `%2F` would otherwise turn into extra folders (and `..%2F` into a path outside the output).
 */
const ILLEGAL = /[<>:"|?*\\/\u0000-\u001f\u007f]/g;
/** Windows reserves these names whatever the extension (`con.html` too), so the stem is tested. */
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;
const MAX_SEGMENT_BYTES = 120;
/** Server-side page extensions: the saved file is the rendered page, so it becomes `.html`. */
const PAGE_EXTENSION = /\.(?:html?|aspx?|php|jsp|cfm)$/i;

function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function truncateUtf8(text: string, maxBytes: number): string {
  let out = '';
  for (const char of text) {
    if (Buffer.byteLength(out + char) > maxBytes) break;
    out += char;
  }
  return out;
}

function safeSegment(segment: string): string {
  // Truncated first, so the cut cannot leave a trailing dot or space (illegal on Windows).
  let clean = truncateUtf8(decode(segment).replace(ILLEGAL, '_'), MAX_SEGMENT_BYTES)
    .replace(/[. ]+$/, '')
    .replace(/^\.+/, '_');
  if (clean === '' || RESERVED.test(clean.split('.')[0])) clean = `_${clean}`;
  return clean;
}

/**
 * A relative, '/'-separated path for `url`: `<host>/<path segments>.<ext>`. A query string adds a
 * short hash of itself, because `?page=2` is a different page with the same path.
 */
export function savedPathFor(url: string, kind: SavedKind): string {
  const parsed = new URL(url);
  const host = safeSegment(parsed.host.replace(':', '_'));
  const segments = parsed.pathname.split('/').filter(Boolean).map(safeSegment);
  let last = segments.pop() ?? 'index';
  if (kind === 'html') last = last.replace(PAGE_EXTENSION, '');
  else last = last.replace(new RegExp(`\\.${kind}$`, 'i'), '');
  if (parsed.search) last = `${last}-q${shortHash(parsed.search)}`;
  return [host, ...segments, `${last || 'index'}.${kind}`].join('/');
}

/**
 * Hands out saved paths, keeping them unique even when two URLs clean up to the same name. Paths
 * are compared case-insensitively: on macOS and Windows `About.html` and `about.html` are one file.
 */
export class SavedPathRegistry {
  readonly #byPath = new Map<string, string>();

  /** Claims `path` for `url` (again, on a resumed crawl); returns the path actually given. */
  claim(url: string, kind: SavedKind, preferred?: string): string {
    const wanted = preferred ?? savedPathFor(url, kind);
    const owner = this.#byPath.get(wanted.toLowerCase());
    if (owner === undefined || owner === url) {
      this.#byPath.set(wanted.toLowerCase(), url);
      return wanted;
    }
    const dot = wanted.lastIndexOf('.');
    const unique = `${wanted.slice(0, dot)}-${shortHash(url)}${wanted.slice(dot)}`;
    this.#byPath.set(unique.toLowerCase(), url);
    return unique;
  }
}
