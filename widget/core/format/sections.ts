/**
 * The container of format 2's binary files: a 4-byte magic, a little-endian u32 header length,
 * a JSON header, then named sections each starting on a 4-byte boundary, so that a reader views
 * a section as a Uint32Array (or Int32Array, Uint16Array) in place instead of copying it.
 *
 *   magic  u32 headerLength  header JSON {…, sections: {name: [offset, length]}}  sections…
 */
import { createError } from '../errors.ts';

const encoder = new TextEncoder();
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

type Typed = Uint32Array | Int32Array | Uint16Array;
type TypedKind<T extends Typed> = { new (buffer: ArrayBuffer, offset: number, length: number): T; new (length: number): T; BYTES_PER_ELEMENT: number };

function requireLittleEndian(): void {
  // Every browser and Node platform we ship to is little-endian; say so plainly on one that is not.
  if (!LITTLE_ENDIAN) throw createError('INDEX_FORMAT_UNSUPPORTED', 'a big-endian platform', 'a little-endian one');
}

/** The bytes of a typed array as stored (little-endian). */
export function typedBytes(array: Typed): Uint8Array {
  requireLittleEndian();
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

const align4 = (n: number) => (n + 3) & ~3;

/** Writes `header` (plus the section table) and the sections after `magic`. */
export function writeSections(magic: string, header: object, sections: readonly (readonly [string, Uint8Array])[]): Uint8Array {
  const table: Record<string, [number, number]> = {};
  const full = { ...header, sections: table };
  // Offsets depend on the header's length, which depends on the offsets: lay out until stable.
  const layout = (headerLength: number) => {
    let offset = align4(8 + headerLength);
    for (const [name, bytes] of sections) {
      table[name] = [offset, bytes.length];
      offset = align4(offset + bytes.length);
    }
    return offset;
  };
  let headerLength = encoder.encode(JSON.stringify(full)).length;
  let total = layout(headerLength);
  let json = encoder.encode(JSON.stringify(full));
  while (json.length !== headerLength) {
    headerLength = json.length;
    total = layout(headerLength);
    json = encoder.encode(JSON.stringify(full));
  }
  const out = new Uint8Array(total);
  out.set(encoder.encode(magic), 0);
  new DataView(out.buffer).setUint32(4, json.length, true);
  out.set(json, 8);
  for (const [name, bytes] of sections) out.set(bytes, table[name][0]);
  return out;
}

/** A decoded container: its header and a checked accessor for each section. */
export interface SectionFile<H> {
  header: H;
  bytes(name: string): Uint8Array;
  array<T extends Typed>(name: string, kind: TypedKind<T>, length: number): T;
}

export function readSections<H extends object>(bytes: Uint8Array, magic: string, source: string): SectionFile<H> {
  const fail = (reason: string) => createError('INDEX_CORRUPT', source, reason);
  if (bytes.length < 8 || new TextDecoder().decode(bytes.subarray(0, 4)) !== magic) throw fail(`not a ${magic} file`);
  const headerLength = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, true);
  if (8 + headerLength > bytes.length) throw fail('truncated header');
  let header: H & { sections?: Record<string, [number, number]> };
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLength)));
  } catch (error) {
    throw fail(`unreadable header (${error instanceof Error ? error.message : String(error)})`);
  }
  const table = header.sections;
  if (!table || typeof table !== 'object') throw fail('no section table');
  const section = (name: string): Uint8Array => {
    const range = table[name];
    if (!Array.isArray(range)) throw fail(`section ${name} missing`);
    const [offset, length] = range;
    if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0 || offset + length > bytes.length) {
      throw fail(`section ${name} lies outside the file (truncated?)`);
    }
    return bytes.subarray(offset, offset + length);
  };
  return {
    header,
    bytes: section,
    array<T extends Typed>(name: string, Kind: TypedKind<T>, length: number): T {
      const raw = section(name);
      if (raw.length !== length * Kind.BYTES_PER_ELEMENT) throw fail(`section ${name} has ${raw.length} bytes, expected ${length * Kind.BYTES_PER_ELEMENT}`);
      requireLittleEndian();
      if (raw.byteOffset % Kind.BYTES_PER_ELEMENT === 0) return new Kind(raw.buffer as ArrayBuffer, raw.byteOffset, length);
      // A file read into a shared buffer (Node's pooled Buffers) may start unaligned: copy.
      const copy = new Kind(length);
      new Uint8Array(copy.buffer).set(raw);
      return copy;
    },
  };
}
