import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../../builder/crawl/host-scheduler.ts';
import { PoliteFetcher, type PoliteFetcherOptions } from '../../../builder/crawl/polite-fetcher.ts';
import { isHarelError } from '../../../builder/errors.ts';

/** Virtual time: every sleep returns at once, recording what was asked and moving `now` on. */
class InstantClock implements Clock {
  time = 0;
  readonly sleeps: number[] = [];

  now(): number {
    return this.time;
  }

  async sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) throw signal.reason;
    this.sleeps.push(ms);
    this.time += ms;
  }
}

interface Hit {
  path: string;
  userAgent: string | undefined;
  /** Virtual time when the request reached the server. */
  at: number;
}

interface Site {
  origin: string;
  hits: Hit[];
  count(path: string): number;
}

const servers: Server[] = [];

/** A local site answering with `handler`; every request is logged with the clock's virtual time. */
async function startSite(clock: InstantClock, handler: (req: IncomingMessage, res: ServerResponse, hits: Hit[]) => void): Promise<Site> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    hits.push({ path: req.url ?? '/', userAgent: req.headers['user-agent'], at: clock.now() });
    handler(req, res, hits);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    count: (path) => hits.filter((hit) => hit.path === path).length,
  };
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

const USER_AGENT = 'harel-builder/0.1 (+https://example.co.il/bot)';
const BACKOFF = { retries: 3, baseMs: 1000, maxMs: 30_000 };

function fetcher(clock: InstantClock, overrides: Partial<PoliteFetcherOptions> = {}): PoliteFetcher {
  return new PoliteFetcher({ userAgent: USER_AGENT, concurrency: 4, delayMs: 0, timeoutMs: 5000, maxBytes: 1 << 20, backoff: BACKOFF, clock, ...overrides });
}

const wantsAll = { wantsBody: () => true };

/** The nth backoff wait (1-based) lies within ±25 % of baseMs·2^(n-1). */
function expectBackoff(waits: number[]): void {
  waits.forEach((wait, i) => {
    const exponential = BACKOFF.baseMs * 2 ** i;
    expect(wait).toBeGreaterThanOrEqual(exponential * 0.75);
    expect(wait).toBeLessThanOrEqual(exponential * 1.25);
  });
}

describe('PoliteFetcher.get', () => {
  it('retries a 500 and returns the 200 that follows, after a backoff wait', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (req, res, hits) => {
      const tries = hits.filter((hit) => hit.path === req.url).length;
      if (tries === 1) res.writeHead(500).end('oops');
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>ok</p>');
    });
    const retries: [string, number, number, string][] = [];
    const polite = fetcher(clock, { onRetry: (...args) => retries.push(args) });
    const response = await polite.get(`${site.origin}/flaky`, wantsAll);
    expect(response).toMatchObject({ kind: 'body', status: 200 });
    expect(site.count('/flaky')).toBe(2);
    expect(polite.requests).toBe(2);
    expect(clock.sleeps).toHaveLength(1);
    expectBackoff(clock.sleeps);
    expect(retries).toEqual([[`${site.origin}/flaky`, 1, clock.sleeps[0], 'HTTP 500']]);
  });

  it('does not retry a 404', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (_, res) => res.writeHead(404).end());
    const polite = fetcher(clock);
    expect(await polite.get(`${site.origin}/missing`, wantsAll)).toEqual({ kind: 'error', status: 404, retryAfterMs: null });
    expect(site.count('/missing')).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('gives up after `retries` retries and returns the persistent 503, waits doubling', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (_, res) => res.writeHead(503).end());
    const polite = fetcher(clock);
    expect(await polite.get(`${site.origin}/down`, wantsAll)).toEqual({ kind: 'error', status: 503, retryAfterMs: null });
    expect(site.count('/down')).toBe(BACKOFF.retries + 1);
    expect(clock.sleeps).toHaveLength(BACKOFF.retries);
    expectBackoff(clock.sleeps);
  });

  it('waits as long as a longer Retry-After asks', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (_req, res, hits) => {
      if (hits.length === 1) res.writeHead(429, { 'retry-after': '12' }).end();
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    expect(await fetcher(clock).get(`${site.origin}/limited`, wantsAll)).toMatchObject({ kind: 'body', status: 200 });
    expect(clock.sleeps).toEqual([12_000]);
  });

  it('retries a refused connection, then throws CRAWL_NETWORK', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (_, res) => res.end());
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const error = await fetcher(clock)
      .get(`${site.origin}/x`, wantsAll)
      .catch((caught: unknown) => caught);
    expect(isHarelError(error, 'CRAWL_NETWORK')).toBe(true);
    expect(clock.sleeps).toHaveLength(BACKOFF.retries);
  });

  it('throws ABORTED when its signal has fired', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (_, res) => res.writeHead(200).end());
    const controller = new AbortController();
    controller.abort();
    const error = await fetcher(clock, { signal: controller.signal })
      .get(`${site.origin}/x`, wantsAll)
      .catch((caught: unknown) => caught);
    expect(isHarelError(error, 'ABORTED')).toBe(true);
    expect(site.hits).toEqual([]);
  });

  it('sends its User-Agent and the caller’s headers', async () => {
    const clock = new InstantClock();
    const seen: IncomingMessage['headers'][] = [];
    const site = await startSite(clock, (req, res) => {
      seen.push(req.headers);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await fetcher(clock).get(`${site.origin}/page`, { ...wantsAll, headers: { 'if-none-match': '"v1"' } });
    expect(seen[0]['user-agent']).toBe(USER_AGENT);
    expect(seen[0]['if-none-match']).toBe('"v1"');
    expect(seen[0].accept).toContain('text/html');
  });
});

describe('PoliteFetcher.robots', () => {
  it('fetches robots.txt once per origin, even when asked concurrently, with its User-Agent', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (_, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n'));
    const polite = fetcher(clock);
    const all = await Promise.all([polite.robots(site.origin), polite.robots(site.origin), polite.robots(site.origin)]);
    expect(await polite.robots(site.origin)).toBe(all[0]);
    expect(all[1]).toBe(all[0]);
    expect(site.count('/robots.txt')).toBe(1);
    expect(site.hits[0].userAgent).toBe(USER_AGENT);
    expect(all[0].isAllowed(`${site.origin}/private/x`)).toBe(false);
    expect(all[0].isAllowed(`${site.origin}/public`)).toBe(true);
  });

  it('spaces two requests to a host by its Crawl-delay', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (req, res) => {
      if (req.url === '/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nCrawl-delay: 2\n');
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
    });
    const polite = fetcher(clock);
    expect((await polite.robots(site.origin)).crawlDelayMs).toBe(2000);
    await polite.get(`${site.origin}/a`, wantsAll);
    await polite.get(`${site.origin}/b`, wantsAll);
    const a = site.hits.find((hit) => hit.path === '/a')!;
    const b = site.hits.find((hit) => hit.path === '/b')!;
    expect(b.at - a.at).toBeGreaterThanOrEqual(2000);
    expect(clock.sleeps).toContain(2000);
    expect(clock.sleeps.every((ms) => ms <= 2000)).toBe(true);
    expect(clock.sleeps.reduce((sum, ms) => sum + ms, 0)).toBeGreaterThanOrEqual(2000);
  });

  it('does not space requests when robots.txt sets no Crawl-delay and --delay is 0', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (req, res) => {
      if (req.url === '/robots.txt') res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow:\n');
      else res.writeHead(200, { 'content-type': 'text/html' }).end('<p>page</p>');
    });
    const polite = fetcher(clock);
    await polite.robots(site.origin);
    await polite.get(`${site.origin}/a`, wantsAll);
    await polite.get(`${site.origin}/b`, wantsAll);
    expect(clock.sleeps).toEqual([]);
  });

  it('allows everything when robots.txt answers 404', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (_, res) => res.writeHead(404).end('User-agent: *\nDisallow: /\n'));
    const rules = await fetcher(clock).robots(site.origin);
    expect(rules.isAllowed(`${site.origin}/anything`)).toBe(true);
    expect(rules.refusal).toBeNull();
    expect(site.count('/robots.txt')).toBe(1);
  });

  it('disallows everything, saying why, when robots.txt keeps answering 500', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (_, res) => res.writeHead(500).end());
    const rules = await fetcher(clock).robots(site.origin);
    expect(site.count('/robots.txt')).toBe(BACKOFF.retries + 1);
    expect(rules.isAllowed(`${site.origin}/`)).toBe(false);
    expect(rules.refusal).toBe('HTTP 500');
  });

  it('disallows everything when robots.txt cannot be reached', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (_, res) => res.end());
    await new Promise<void>((resolve) => servers.pop()!.close(() => resolve()));
    const rules = await fetcher(clock).robots(site.origin);
    expect(rules.isAllowed(`${site.origin}/`)).toBe(false);
    expect(rules.refusal).toContain('ECONNREFUSED');
  });

  it('applies robots.txt rules to the origin asked about when robots.txt redirects to another origin', async () => {
    const clock = new InstantClock();
    const target = await startSite(clock, (_, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private/\n'));
    const site = await startSite(clock, (_, res) => res.writeHead(301, { location: `${target.origin}/robots.txt` }).end());
    const rules = await fetcher(clock).robots(site.origin);
    expect(target.count('/robots.txt')).toBe(1);
    expect(rules.isAllowed(`${site.origin}/private/x`)).toBe(false);
    expect(rules.isAllowed(`${site.origin}/public`)).toBe(true);
  });
});

describe('PoliteFetcher.getFollowing', () => {
  it('follows redirects to the final body and says where it ended', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (req, res) => {
      if (req.url === '/sitemap.xml') res.writeHead(301, { location: '/moved/sitemap.xml' }).end();
      else if (req.url === '/moved/sitemap.xml') res.writeHead(302, { location: '/final.xml' }).end();
      else if (req.url === '/final.xml') res.writeHead(200, { 'content-type': 'application/xml' }).end('<urlset/>');
      else res.writeHead(404).end();
    });
    const result = await fetcher(clock).getFollowing(`${site.origin}/sitemap.xml`);
    expect(result.status).toBe(200);
    expect(result.url).toBe(`${site.origin}/final.xml`);
    expect(result.contentType).toBe('application/xml');
    expect(new TextDecoder().decode(result.body)).toBe('<urlset/>');
    expect(site.hits.map((hit) => hit.path)).toEqual(['/sitemap.xml', '/moved/sitemap.xml', '/final.xml']);
  });

  it('returns a final error status with an empty body', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (req, res) => {
      if (req.url === '/a') res.writeHead(302, { location: '/gone' }).end();
      else res.writeHead(410).end('gone');
    });
    const result = await fetcher(clock).getFollowing(`${site.origin}/a`);
    expect(result).toEqual({ status: 410, url: `${site.origin}/gone`, contentType: null, body: new Uint8Array(0) });
  });

  it('stops after five redirects', async () => {
    const clock = new InstantClock();
    const site = await startSite(clock, (_, res, hits) => res.writeHead(302, { location: `/hop${hits.length}` }).end());
    const result = await fetcher(clock).getFollowing(`${site.origin}/start`);
    expect(result.status).toBe(310);
    expect(site.hits).toHaveLength(6);
  });
});
