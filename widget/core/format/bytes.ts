/**
 * Byte helpers that run the same in Node 20 and in browsers: both have WHATWG streams,
 * CompressionStream and SubtleCrypto, so core needs neither zlib nor node:crypto.
 */

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
  const reader = stream.getReader();
  const parts: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.length;
    if (length > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw new RangeError(`inflates to more than the ${maxBytes} bytes the manifest gives`);
    }
    parts.push(value);
  }
  const out = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
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
