/**
 * A plain static server for the demo's production build (`npm run preview`), the benchmarks and the
 * browser tests: `.wasm` as application/wasm (streaming compilation), `.mjs` as JavaScript, and the
 * index's `.gz` files as application/octet-stream *without* Content-Encoding (the widget verifies
 * their sha256 before it inflates them). Every response allows CORS, so another origin can load
 * the widget, its workers and the index from here, as from a CDN. A single byte range is honoured,
 * as on any static host: transformers.js asks each model file for `bytes=0-0` to learn its size,
 * and a server that ignored it would start sending the whole file. A file with a gzip copy beside
 * it (`model.onnx.gz`, written by demo/scripts/build-site.ts) is sent compressed to a client that
 * accepts gzip, as nginx's gzip_static does: what a real host sends, so the benchmarks measure the
 * bytes a visitor downloads. The dev server (vite.config.ts) sends its model files with `sendFile` too.
 */
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, resolve, sep } from 'node:path';

export const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
  '.pdf': 'application/pdf',
  '.gz': 'application/octet-stream',
  '.onnx': 'application/octet-stream',
  '.bin': 'application/octet-stream',
};

/**
 * What makes a page cross-origin isolated (`crossOriginIsolated`, SharedArrayBuffer): then the GGUF
 * engine and the reader run llama.cpp on several threads, and the query model onnxruntime's
 * threads. Every resource such a page loads from another origin must then allow it (CORS, or
 * `Cross-Origin-Resource-Policy`): docs/site-owners.md. The demo and preview servers send these.
 */
export const CROSS_ORIGIN_ISOLATION_HEADERS: Readonly<Record<string, string>> = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export interface StaticServerOptions {
  /** The folder served; a function so a test can publish a new build under a running server. */
  root: string | (() => string);
  port?: number;
  host?: string;
  /** Extra headers for every response (a test's Content-Security-Policy). */
  headers?: Record<string, string>;
  /** Answers a path before the files (a test's own page); return false to fall through. */
  handle?: (path: string, res: ServerResponse) => boolean;
  onRequest?: (path: string) => void;
  /** Other folders at URL prefixes ('/harel-index/' → a folder), checked before `root`. */
  mounts?: Record<string, string>;
  /** Called for each file sent, with the file it came from and the bytes sent (a range: fewer than the file). */
  onServe?: (path: string, file: string, bytes: number) => void;
}

/**
 * The one byte range a `Range` header asks of a file of `size` bytes: null to send it whole (no
 * header, several ranges, or another unit), 'unsatisfiable' for a range outside the file.
 */
export function byteRange(header: string | undefined, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!match || (match[1] === '' && match[2] === '')) return null;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  return start > end || start >= size ? 'unsatisfiable' : { start, end };
}

/**
 * Sends `file` (which exists) as a static host would: its content type, `Accept-Ranges`, one byte
 * range when asked (206, or 416 outside the file), no body for HEAD. Returns the bytes sent, or null
 * when no body was (416, HEAD).
 */
export function sendFile(req: IncomingMessage, res: ServerResponse, file: string, contentType = CONTENT_TYPES[extname(file)] ?? 'application/octet-stream'): number | null {
  // A validator, as every static host sends: a revalidated file is answered 304, so the browser
  // uses its cached copy — and, for a .wasm, the compiled code V8 cached with it.
  const stat = statSync(file);
  const etag = `W/"${stat.size.toString(16)}-${Math.floor(stat.mtimeMs).toString(16)}"`;
  res.setHeader('ETag', etag);
  if (req.headers['if-none-match'] === etag && !req.headers.range) {
    res.statusCode = 304;
    res.end();
    return null;
  }
  const compressed = `${file}.gz`;
  if (!file.endsWith('.gz') && existsSync(compressed)) {
    res.setHeader('Vary', 'Accept-Encoding');
    if (!req.headers.range && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      res.setHeader('Content-Type', contentType);
      res.setHeader('Content-Encoding', 'gzip');
      res.setHeader('Content-Length', statSync(compressed).size);
      if (req.method === 'HEAD') {
        res.end();
        return null;
      }
      createReadStream(compressed).pipe(res);
      return statSync(compressed).size;
    }
  }
  const size = statSync(file).size;
  const range = byteRange(req.headers.range, size);
  res.setHeader('Content-Type', contentType);
  res.setHeader('Accept-Ranges', 'bytes');
  if (range === 'unsatisfiable') {
    res.statusCode = 416;
    res.setHeader('Content-Range', `bytes */${size}`);
    res.end();
    return null;
  }
  if (range) {
    res.statusCode = 206;
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${size}`);
  }
  const length = range ? range.end - range.start + 1 : size;
  res.setHeader('Content-Length', length);
  if (req.method === 'HEAD') {
    res.end();
    return null;
  }
  createReadStream(file, range ?? undefined).pipe(res);
  return length;
}

export async function startStaticServer(options: StaticServerOptions): Promise<{ server: Server; origin: string; close(): Promise<void> }> {
  const rootOf = typeof options.root === 'function' ? options.root : () => options.root as string;
  const server = createServer((req, res) => {
    let path: string;
    try {
      path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    } catch {
      res.statusCode = 400;
      res.end();
      return;
    }
    options.onRequest?.(path);
    res.setHeader('Access-Control-Allow-Origin', '*');
    for (const [name, value] of Object.entries(options.headers ?? {})) res.setHeader(name, value);
    if (options.handle?.(path, res)) return;
    const mount = Object.entries(options.mounts ?? {}).find(([prefix]) => path.startsWith(prefix));
    const dir = resolve(mount ? mount[1] : rootOf());
    let file = resolve(join(dir, mount ? path.slice(mount[0].length) : path));
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, 'index.html');
    if (!(file === dir || file.startsWith(dir + sep)) || !existsSync(file) || !statSync(file).isFile()) {
      res.statusCode = 404;
      res.setHeader('Content-Type', 'text/plain; charset=utf-8');
      res.end(`not found: ${path}\n`);
      return;
    }
    // Hashed assets never change; everything else (pages, sw.js, the index) is revalidated so a
    // new build is seen at once.
    res.setHeader('Cache-Control', /[\\/]assets[\\/].+-[\w-]{8}\.js$/.test(file) ? 'public, max-age=31536000, immutable' : 'no-cache');
    const bytes = sendFile(req, res, file);
    if (bytes !== null) options.onServe?.(path, file, bytes);
  });
  const host = options.host ?? 'localhost';
  await new Promise<void>((ready, fail) => {
    server.once('error', fail);
    server.listen(options.port ?? 0, host, ready);
  });
  const origin = `http://${host}:${(server.address() as AddressInfo).port}`;
  return { server, origin, close: () => new Promise<void>((done) => server.close(() => done())) };
}
