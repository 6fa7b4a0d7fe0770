/**
 * One HTTP request of the crawl, with no redirect following (the crawler follows redirects
 * itself, to check each hop against scope and robots.txt and to record the chain), a timeout
 * covering the whole body, and a size cap enforced while streaming.
 */
import { createError, isHarelError } from '../errors.ts';
import { readStreamBytes } from '../../widget/core/format/bytes.ts';

export interface HttpRequest {
  url: string;
  headers: Record<string, string>;
  timeoutMs: number;
  maxBytes: number;
  /** Whether to download the body of a 200 with this content type (false: drop it unread). */
  wantsBody(contentType: string): boolean;
  signal?: AbortSignal;
}

export interface HttpValidators {
  etag: string | null;
  lastModified: string | null;
}

export type HttpResponse =
  | { kind: 'redirect'; status: number; location: string }
  | { kind: 'not-modified'; status: 304; validators: HttpValidators }
  | { kind: 'body'; status: number; contentType: string; body: Uint8Array; validators: HttpValidators }
  | { kind: 'unwanted'; status: number; contentType: string }
  | { kind: 'error'; status: number; retryAfterMs: number | null };

/** `Retry-After` as milliseconds (seconds or an HTTP date), or null when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}

async function readCapped(response: Response, url: string, maxBytes: number): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw createError('CRAWL_TOO_LARGE', url, declared, maxBytes);
  }
  if (!response.body) return new Uint8Array(0);
  const body = await readStreamBytes(response.body, { stopAt: maxBytes + 1 });
  if (body.byteLength > maxBytes) throw createError('CRAWL_TOO_LARGE', url, body.byteLength, maxBytes);
  return body;
}

function validatorsOf(response: Response): HttpValidators {
  return { etag: response.headers.get('etag'), lastModified: response.headers.get('last-modified') };
}

function describe(error: unknown): string {
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  if (cause instanceof Error) return 'code' in cause && typeof cause.code === 'string' ? `${cause.code} ${cause.message}` : cause.message;
  return String(error);
}

/**
 * Sends one GET. Throws ABORTED (the caller's signal), CRAWL_TIMEOUT, CRAWL_NETWORK or
 * CRAWL_TOO_LARGE; every HTTP status comes back as a value.
 */
export async function httpGet(request: HttpRequest): Promise<HttpResponse> {
  const timeout = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, timeout]) : timeout;
  try {
    const response = await fetch(request.url, { headers: request.headers, redirect: 'manual', signal });
    const status = response.status;
    const location = response.headers.get('location');
    if (status >= 300 && status < 400 && status !== 304 && location) {
      await response.body?.cancel().catch(() => undefined);
      return { kind: 'redirect', status, location };
    }
    if (status === 304) return { kind: 'not-modified', status, validators: validatorsOf(response) };
    if (status < 200 || status >= 300) {
      await response.body?.cancel().catch(() => undefined);
      return { kind: 'error', status, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
    }
    const contentType = (response.headers.get('content-type') ?? 'application/octet-stream').toLowerCase();
    if (!request.wantsBody(contentType)) {
      await response.body?.cancel().catch(() => undefined);
      return { kind: 'unwanted', status, contentType };
    }
    const body = await readCapped(response, request.url, request.maxBytes);
    return { kind: 'body', status, contentType, body, validators: validatorsOf(response) };
  } catch (error) {
    if (isHarelError(error)) throw error;
    if (request.signal?.aborted) throw createError('ABORTED');
    if (timeout.aborted) throw createError('CRAWL_TIMEOUT', request.url, request.timeoutMs);
    throw createError('CRAWL_NETWORK', request.url, describe(error));
  }
}
