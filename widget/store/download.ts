/**
 * Downloads a file through its body stream so progress counts bytes as they arrive (an
 * `arrayBuffer()` call would report nothing until the end), and with a size cap so a server that
 * sends more than the manifest promised cannot make us buffer without end. A web page where an
 * index file should be (a single-page app's fallback rewrite, a login page: status 200, HTML) is
 * named as such, not reported as a file that fails to decode or to match its hash.
 */
import { createError, isHarelError, throwIfAborted } from '../core/errors.ts';
import { readStreamBytes } from '../core/format/bytes.ts';

export interface DownloadOptions {
  signal?: AbortSignal;
  /** Bytes expected; reading stops one byte past it (the integrity check then reports the size). */
  expectedBytes?: number;
  onBytes?: (received: number) => void;
  fetch?: typeof fetch;
  cache?: RequestCache;
  /** The error for a 404, when it means more than a failed download (a missing manifest). */
  notFound?: () => Error;
}

export async function downloadBytes(url: string, file: string, options: DownloadOptions = {}): Promise<Uint8Array> {
  const { signal } = options;
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(url, { signal, cache: options.cache });
  } catch (error) {
    throwIfAborted(signal);
    throw createError('INDEX_DOWNLOAD_FAILED', file, error instanceof Error ? error.message : String(error));
  }
  if (response.status === 404 && options.notFound) throw options.notFound();
  if (!response.ok) throw createError('INDEX_DOWNLOAD_FAILED', file, `HTTP ${response.status}`);
  const bytes = await readBody(response, file, options);
  if (isWebPage(bytes, response.headers.get('content-type'))) throw createError('INDEX_WEB_PAGE', url);
  return bytes;
}

const decoder = new TextDecoder();

/**
 * Whether a 200 answer is a web page rather than an index file. Every index file starts with `{`
 * (manifest.json) or gzip's 0x1f 0x8b, never with `<`: so the body decides, and the Content-Type
 * only widens what counts as HTML (a page that starts with a comment or `<head>`). A real file sent
 * with a wrong `text/html` type is not mistaken for a page.
 */
export function isWebPage(bytes: Uint8Array, contentType: string | null): boolean {
  const start = decoder
    .decode(bytes.subarray(0, 256))
    .replace(/^\uFEFF/, '')
    .trimStart()
    .toLowerCase();
  if (!start.startsWith('<')) return false;
  return start.startsWith('<!doctype html') || start.startsWith('<html') || /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType ?? '');
}

async function readBody(response: Response, file: string, options: DownloadOptions): Promise<Uint8Array> {
  const { signal, expectedBytes, onBytes } = options;
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  try {
    return await readStreamBytes(response.body, { stopAt: expectedBytes === undefined ? undefined : expectedBytes + 1, onBytes });
  } catch (error) {
    throwIfAborted(signal);
    if (isHarelError(error)) throw error;
    throw createError('INDEX_DOWNLOAD_FAILED', file, error instanceof Error ? error.message : String(error));
  }
}
