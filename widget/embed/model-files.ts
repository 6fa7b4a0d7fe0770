/**
 * The query model's files, fetched once and kept in the device's Cache Storage for later visits
 * and offline use (a PWA's service worker leaves them to this cache: demo/sw.ts).
 *
 * A file is stored only whole: its status is 200, it is not a web page (a site answering a
 * missing model URL with its HTML 404 page), and it has every byte its Content-Length announced.
 * A file that is stored but turns out unreadable (a parse error) is removed by the caller
 * (`forgetModelFiles`), so one bad download never fails every later visit.
 */
import { throwIfAborted } from '../core/errors.ts';
import { readStreamBytes } from '../core/format/bytes.ts';
import type { WorkOptions } from '../core/schema.ts';

/**
 * The Cache Storage bucket of model files. transformers.js's name, which the widget used while it
 * loaded the model through transformers.js: files earlier visits stored there still answer.
 */
export const MODEL_CACHE = 'transformers-cache';

export interface ModelFileOptions extends Pick<WorkOptions, 'signal'> {
  /** Bytes of this file so far, and its size when the server said (0 when it did not). */
  onBytes?: (loaded: number, total: number) => void;
}

async function openCache(): Promise<Cache | null> {
  if (typeof caches === 'undefined') return null;
  try {
    return await caches.open(MODEL_CACHE);
  } catch {
    // Opaque origins and some private modes refuse Cache Storage: the model still loads, unkept.
    return null;
  }
}

async function readAll(response: Response, options: ModelFileOptions, url: string): Promise<Uint8Array<ArrayBuffer>> {
  const total = Number(response.headers.get('content-length') ?? 0) || 0;
  if (!response.body) return new Uint8Array(await response.arrayBuffer());
  const bytes = await readStreamBytes(response.body, { signal: options.signal, onBytes: (loaded) => options.onBytes?.(loaded, total) });
  // Content-Length counts the bytes on the wire: it says nothing about a compressed response's body.
  const encoded = (response.headers.get('content-encoding') ?? 'identity') !== 'identity';
  if (total && !encoded && bytes.byteLength !== total) throw new Error(`${url}: the download stopped at ${bytes.byteLength} of ${total} bytes`);
  return bytes;
}

/** The bytes of `url` if the device's cache holds it, else null: never the network. */
export async function readCachedModelFile(url: string): Promise<Uint8Array<ArrayBuffer> | null> {
  const cache = await openCache();
  const cached = await cache?.match(url).catch(() => undefined);
  return cached ? new Uint8Array(await cached.arrayBuffer()) : null;
}

/** The bytes of `url`, from the cache or the network (then stored). Errors name the URL. */
export async function fetchModelFile(url: string, options: ModelFileOptions = {}): Promise<Uint8Array<ArrayBuffer>> {
  const cache = await openCache();
  const cached = await cache?.match(url).catch(() => undefined);
  if (cached) {
    const bytes = new Uint8Array(await cached.arrayBuffer());
    options.onBytes?.(bytes.byteLength, bytes.byteLength);
    return bytes;
  }
  throwIfAborted(options.signal);
  const response = await fetch(url, { signal: options.signal, credentials: 'omit' });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}${response.status === 404 ? ' (not found)' : ''}`);
  if (/^text\/html/i.test(response.headers.get('content-type') ?? '')) throw new Error(`${url}: the server answered with a web page, not a model file`);
  const bytes = await readAll(response, options, url);
  await cache
    ?.put(url, new Response(bytes, { headers: { 'content-type': response.headers.get('content-type') ?? 'application/octet-stream', 'content-length': String(bytes.byteLength) } }))
    .catch(() => undefined);
  return bytes;
}

/**
 * Removes every cached file under `prefix` (a model's folder URL). Best effort: no Cache Storage,
 * or nothing stored, is nothing to do.
 */
export async function forgetCachedFiles(prefix: string): Promise<number> {
  const cache = await openCache();
  if (!cache) return 0;
  try {
    const stale = (await cache.keys()).filter((request) => request.url.startsWith(prefix));
    await Promise.all(stale.map((request) => cache.delete(request)));
    return stale.length;
  } catch {
    return 0;
  }
}
