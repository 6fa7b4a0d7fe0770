/**
 * Byte helpers that run the same in Node 20 and in browsers: both have WHATWG streams,
 * CompressionStream and SubtleCrypto, so core needs neither zlib nor node:crypto.
 */
import { throwIfAborted } from '../errors.ts';

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Inflates gzip. With `maxBytes`, stops (and throws a RangeError) as soon as the output would pass
 * it: a file whose manifest says 1 MB never inflates to a gigabyte.
 */
export async function gunzip(bytes: Uint8Array, maxBytes?: number): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip'));
  if (maxBytes === undefined) return new Uint8Array(await new Response(stream).arrayBuffer());
  const out = await readStreamBytes(stream, { stopAt: maxBytes + 1 });
  if (out.length > maxBytes) throw new RangeError(`inflates to more than the ${maxBytes} bytes the manifest gives`);
  return out;
}

export interface ReadStreamOptions {
  /** Stop reading once this many bytes have come; the chunk that reached it is kept whole, so the result may be longer. */
  stopAt?: number;
  /** The bytes read so far, after each chunk. */
  onBytes?: (received: number) => void;
  /** Checked before each read: ABORTED (core/errors.ts) once it has fired. */
  signal?: AbortSignal;
}

/**
 * A byte stream's bytes, read chunk by chunk (a response body, an inflating stream) so that
 * progress counts bytes as they come and a cap stops a stream that would not end. The stream is
 * let go of however reading ends (done, stopped at the cap, failed, aborted). A read's error is
 * thrown as it is: callers say what failed.
 */
export async function readStreamBytes(stream: ReadableStream<Uint8Array>, options: ReadStreamOptions = {}): Promise<Uint8Array<ArrayBuffer>> {
  const { stopAt = Number.POSITIVE_INFINITY, onBytes, signal } = options;
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let received = 0;
  try {
    while (received < stopAt) {
      throwIfAborted(signal);
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      received += value.byteLength;
      onBytes?.(received);
    }
  } finally {
    reader.cancel().catch(() => undefined);
  }
  const out = new Uint8Array(received);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

export async function gzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

export function decodeJson<T>(bytes: Uint8Array): T {
  return JSON.parse(utf8Decoder.decode(bytes)) as T;
}

export function encodeJson(value: unknown): Uint8Array {
  return utf8Encoder.encode(JSON.stringify(value));
}
