import { describe, expect, it } from 'vitest';
import { DEFAULT_BACKOFF, backoffDelay, isRetryableError, isRetryableStatus, type BackoffPolicy } from '../../../builder/crawl/backoff.ts';

const POLICY: BackoffPolicy = { retries: 5, baseMs: 1000, maxMs: 30_000 };
const middle = (): number => 0.5;

describe('backoffDelay', () => {
  it('doubles with each attempt (no jitter at random() = 0.5)', () => {
    expect([1, 2, 3, 4, 5].map((attempt) => backoffDelay(POLICY, attempt, null, middle))).toEqual([1000, 2000, 4000, 8000, 16_000]);
  });

  it('jitters within ±25 %', () => {
    expect(backoffDelay(POLICY, 1, null, () => 0)).toBe(750);
    expect(backoffDelay(POLICY, 1, null, () => 0.999999)).toBeCloseTo(1250, 2);
    expect(backoffDelay(POLICY, 3, null, () => 0)).toBe(3000);
    expect(backoffDelay(POLICY, 3, null, () => 0.25)).toBe(3500);
    for (let i = 0; i < 200; i++) {
      const delay = backoffDelay(POLICY, 2, null);
      expect(delay).toBeGreaterThanOrEqual(1500);
      expect(delay).toBeLessThanOrEqual(2500);
    }
  });

  it('waits for Retry-After when it is longer, not when shorter', () => {
    expect(backoffDelay(POLICY, 1, 5000, middle)).toBe(5000);
    expect(backoffDelay(POLICY, 3, 100, middle)).toBe(4000);
    expect(backoffDelay(POLICY, 1, 0, middle)).toBe(1000);
  });

  it('never waits longer than maxMs, whatever the attempt or Retry-After', () => {
    expect(backoffDelay(POLICY, 10, null, middle)).toBe(30_000);
    expect(backoffDelay(POLICY, 6, null, () => 0.999)).toBe(30_000);
    expect(backoffDelay(POLICY, 1, 3_600_000, middle)).toBe(30_000);
    expect(backoffDelay({ retries: 3, baseMs: 100, maxMs: 150 }, 2, null, middle)).toBe(150);
  });

  it('has sane defaults', () => {
    expect(DEFAULT_BACKOFF.retries).toBeGreaterThan(0);
    expect(DEFAULT_BACKOFF.maxMs).toBeGreaterThanOrEqual(DEFAULT_BACKOFF.baseMs);
  });
});

describe('isRetryableStatus', () => {
  it.each([500, 502, 503, 504, 599, 429, 408])('retries %i', (status) => {
    expect(isRetryableStatus(status)).toBe(true);
  });

  it.each([200, 301, 304, 400, 401, 403, 404, 410, 451])('does not retry %i', (status) => {
    expect(isRetryableStatus(status)).toBe(false);
  });
});

describe('isRetryableError', () => {
  it('retries timeouts, network failures and render failures', () => {
    expect(isRetryableError('CRAWL_TIMEOUT')).toBe(true);
    expect(isRetryableError('CRAWL_NETWORK')).toBe(true);
    expect(isRetryableError('CRAWL_RENDER_FAILED')).toBe(true);
  });

  it('does not retry what the crawler decided itself or a cancellation', () => {
    for (const code of ['CRAWL_TOO_LARGE', 'CRAWL_REDIRECT_LOOP', 'CRAWL_TOO_MANY_REDIRECTS', 'CRAWL_UNSUPPORTED_TYPE', 'ABORTED', 'CRAWL_HTTP_STATUS'] as const) {
      expect(isRetryableError(code)).toBe(false);
    }
  });
});
