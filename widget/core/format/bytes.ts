/**
 * Byte helpers that run the same in Node 20 and in browsers: both have WHATWG streams,
 * CompressionStream and SubtleCrypto, so core needs neither zlib nor node:crypto.
 */

export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export async function gunzip(bytes: Uint8Array): Promise<Uint8Array> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
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
