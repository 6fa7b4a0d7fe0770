/**
 * When to try a failed request again. Server errors (5xx), 429 and timeouts are usually
 * passing; 4xx and everything the crawler decided itself (a loop, a size cap) are not.
 */
import type { ErrorCode } from '../errors.ts';

export interface BackoffPolicy {
  /** Attempts after the first. */
  retries: number;
  /** Delay before the first retry; doubles each time. */
  baseMs: number;
  /** No single wait is longer, whatever Retry-After says. */
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffPolicy = { retries: 3, baseMs: 1000, maxMs: 30_000 };

export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 429 || status === 408;
}

export function isRetryableError(code: ErrorCode): boolean {
  return code === 'CRAWL_TIMEOUT' || code === 'CRAWL_NETWORK' || code === 'CRAWL_RENDER_FAILED';
}

/**
 * Milliseconds to wait before retry number `attempt` (1-based): exponential with ±25 % jitter so
 * parallel crawlers do not retry in step, or the server's Retry-After when it names a longer wait.
 */
export function backoffDelay(policy: BackoffPolicy, attempt: number, retryAfterMs: number | null, random = Math.random): number {
  const exponential = policy.baseMs * 2 ** (attempt - 1);
  const jittered = exponential * (0.75 + random() * 0.5);
  return Math.min(policy.maxMs, Math.max(jittered, retryAfterMs ?? 0));
}
