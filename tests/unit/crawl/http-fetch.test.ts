import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpGet, retryAfterMs, type HttpRequest } from '../../../builder/crawl/http-fetch.ts';
import { isHarelError } from '../../../builder/errors.ts';

const KB = 1024;
const routes = new Map<string, (req: IncomingMessage, res: ServerResponse) => void>([
  ['/redirect', (_, res) => res.writeHead(302, { location: '/target' }).end('moved')],
  ['/redirect-absolute', (_, res) => res.writeHead(301, { location: 'https://elsewhere.example/x' }).end()],
  ['/not-modified', (_, res) => res.writeHead(304, { etag: '"v1"', 'last-modified': 'Mon, 01 Jan 2024 00:00:00 GMT' }).end()],
  ['/missing', (_, res) => res.writeHead(404, { 'retry-after': '7', 'content-type': 'text/html' }).end('<h1>gone</h1>')],
  ['/busy', (_, res) => res.writeHead(503).end()],
  ['/page', (_, res) => res.writeHead(200, { 'content-type': 'Text/HTML; charset=utf-8', etag: '"abc"' }).end('<p>שלום</p>')],
  ['/echo-headers', (req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.headers))],
  ['/no-type', (_, res) => res.writeHead(200).end('bytes')],
  ['/image', (_, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(10 * KB))],
  ['/big-declared', (_, res) => res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(64 * KB) }).end(Buffer.alloc(64 * KB))],
  [
    '/big-chunked',
    (_, res) => {
      res.writeHead(200, { 'content-type': 'application/pdf' });
      // No content-length: Node sends it chunked, so only counting while streaming can catch it.
      for (let i = 0; i < 16; i++) res.write(Buffer.alloc(4 * KB));
      res.end();
    },
  ],
  [
    '/small-chunked',
    (_, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('abc');
      res.end('def');
    },
  ],
  [
    '/stall',
    (_, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<p>start');
      res.flushHeaders();
      // ...and never ends.
    },
  ],
  [
    '/stall-headers',
    () => {
      // Never answers at all.
    },
  ],
]);

let server: Server;
let origin: string;
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const route = routes.get(new URL(req.url ?? '/', 'http://x').pathname);
    if (route) route(req, res);
    else res.writeHead(500).end();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function request(path: string, overrides: Partial<HttpRequest> = {}): HttpRequest {
  return { url: `${origin}${path}`, headers: {}, timeoutMs: 5000, maxBytes: 32 * KB, wantsBody: () => true, ...overrides };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe('retryAfterMs', () => {
  it('reads seconds', () => {
    expect(retryAfterMs('120')).toBe(120_000);
    expect(retryAfterMs('0')).toBe(0);
    expect(retryAfterMs('1.5')).toBe(1500);
  });

  it('reads an HTTP date relative to now, never negative', () => {
    const now = Date.parse('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(retryAfterMs('Wed, 21 Oct 2015 07:28:30 GMT', now)).toBe(30_000);
    expect(retryAfterMs('Wed, 21 Oct 2015 07:27:00 GMT', now)).toBe(0);
  });

  it('answers null when absent or unreadable, and 0 for negative seconds', () => {
    expect(retryAfterMs(null)).toBeNull();
    expect(retryAfterMs('')).toBeNull();
    expect(retryAfterMs('soon')).toBeNull();
    expect(retryAfterMs('-5')).toBe(0);
  });
});

describe('httpGet', () => {
  it('returns a 200 body with its lower-cased content type and validators, sending the given headers', async () => {
    const response = await httpGet(request('/page', { headers: { 'user-agent': 'harel-builder-test/1.0' } }));
    expect(response).toMatchObject({ kind: 'body', status: 200, contentType: 'text/html; charset=utf-8', validators: { etag: '"abc"', lastModified: null } });
    if (response.kind !== 'body') throw new Error('not a body');
    expect(new TextDecoder().decode(response.body)).toBe('<p>שלום</p>');
    const echoed = await httpGet(request('/echo-headers', { headers: { 'user-agent': 'harel-builder-test/1.0', 'if-none-match': '"x"' } }));
    if (echoed.kind !== 'body') throw new Error('not a body');
    expect(JSON.parse(new TextDecoder().decode(echoed.body))).toMatchObject({ 'user-agent': 'harel-builder-test/1.0', 'if-none-match': '"x"' });
  });

  it('reads a chunked body under the cap and defaults a missing content type', async () => {
    const chunked = await httpGet(request('/small-chunked'));
    if (chunked.kind !== 'body') throw new Error('not a body');
    expect(new TextDecoder().decode(chunked.body)).toBe('abcdef');
    expect(await httpGet(request('/no-type'))).toMatchObject({ kind: 'body', contentType: 'application/octet-stream' });
  });

  it('returns a redirect as a value without following it', async () => {
    expect(await httpGet(request('/redirect'))).toEqual({ kind: 'redirect', status: 302, location: '/target' });
    expect(await httpGet(request('/redirect-absolute'))).toEqual({ kind: 'redirect', status: 301, location: 'https://elsewhere.example/x' });
  });

  it('returns a 304 with its validators', async () => {
    expect(await httpGet(request('/not-modified'))).toEqual({
      kind: 'not-modified',
      status: 304,
      validators: { etag: '"v1"', lastModified: 'Mon, 01 Jan 2024 00:00:00 GMT' },
    });
  });

  it('returns an HTTP error status as a value, with Retry-After parsed', async () => {
    expect(await httpGet(request('/missing'))).toEqual({ kind: 'error', status: 404, retryAfterMs: 7000 });
    expect(await httpGet(request('/busy'))).toEqual({ kind: 'error', status: 503, retryAfterMs: null });
  });

  it('drops the body of an unwanted content type', async () => {
    const seen: string[] = [];
    const response = await httpGet(request('/image', { wantsBody: (type) => (seen.push(type), type.startsWith('text/')) }));
    expect(response).toEqual({ kind: 'unwanted', status: 200, contentType: 'image/png' });
    expect(seen).toEqual(['image/png']);
  });

  it('refuses a body over maxBytes declared by content-length', async () => {
    const error = await failure(httpGet(request('/big-declared', { maxBytes: 32 * KB })));
    expect(isHarelError(error, 'CRAWL_TOO_LARGE')).toBe(true);
    expect((error as Error).message).toContain(String(64 * KB));
  });

  it('refuses a chunked body over maxBytes while streaming', async () => {
    const error = await failure(httpGet(request('/big-chunked', { maxBytes: 32 * KB })));
    expect(isHarelError(error, 'CRAWL_TOO_LARGE')).toBe(true);
    // The same body is fine under a larger cap.
    const fine = await httpGet(request('/big-chunked', { maxBytes: 64 * KB }));
    expect(fine.kind === 'body' && fine.body.byteLength).toBe(64 * KB);
  });

  it('throws CRAWL_TIMEOUT when the body stalls after the headers', async () => {
    // The body never comes: without the timeout the test would hang until Vitest's own guard.
    const error = await failure(httpGet(request('/stall', { timeoutMs: 300 })));
    expect(isHarelError(error, 'CRAWL_TIMEOUT')).toBe(true);
    // The 300 ms timeout, not some other limit, ended the wait.
    expect((error as Error).message).toContain('300 ms');
  });

  it('throws CRAWL_TIMEOUT when no headers come', async () => {
    const error = await failure(httpGet(request('/stall-headers', { timeoutMs: 300 })));
    expect(isHarelError(error, 'CRAWL_TIMEOUT')).toBe(true);
  });

  it('throws ABORTED when the caller aborts, before or during the request', async () => {
    const early = new AbortController();
    early.abort();
    expect(isHarelError(await failure(httpGet(request('/page', { signal: early.signal }))), 'ABORTED')).toBe(true);
    const late = new AbortController();
    const pending = httpGet(request('/stall', { signal: late.signal, timeoutMs: 10_000 }));
    setTimeout(() => late.abort(), 50);
    expect(isHarelError(await failure(pending), 'ABORTED')).toBe(true);
  });

  it('throws CRAWL_NETWORK when the connection is refused', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const error = await failure(httpGet({ ...request('/page'), url: `http://127.0.0.1:${port}/page` }));
    expect(isHarelError(error, 'CRAWL_NETWORK')).toBe(true);
    expect((error as Error).message).toContain('ECONNREFUSED');
  });
});
