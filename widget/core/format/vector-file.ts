/**
 * The vector sidecar: int8 vectors with one float32 scale each, in one little binary file.
 * Orama's own save() writes every vector twice as decimal text (about 20 KB a chunk at 384
 * dimensions) and fails past ~50k chunks; this layout is dim + 4 bytes a chunk.
 *
 * Layout (little-endian): "HCV1" | uint32 count | uint32 dim | float32 scales[count] | int8 data[count*dim]
 */
import { createError } from '../errors.ts';

const MAGIC = 0x31564348; // "HCV1" read as little-endian uint32

export interface VectorTable {
  count: number;
  dim: number;
  scales: Float32Array;
  data: Int8Array;
}

export function encodeVectorTable(table: VectorTable): Uint8Array {
  const header = 12;
  const out = new Uint8Array(header + table.count * 4 + table.count * table.dim);
  const view = new DataView(out.buffer);
  view.setUint32(0, MAGIC, true);
  view.setUint32(4, table.count, true);
  view.setUint32(8, table.dim, true);
  for (let i = 0; i < table.count; i++) view.setFloat32(header + i * 4, table.scales[i], true);
  out.set(new Uint8Array(table.data.buffer, table.data.byteOffset, table.data.byteLength), header + table.count * 4);
  return out;
}

export function decodeVectorTable(bytes: Uint8Array, source = 'vectors'): VectorTable {
  if (bytes.byteLength < 12) throw createError('INDEX_CORRUPT', source, 'file too short');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== MAGIC) throw createError('INDEX_CORRUPT', source, 'bad magic number');
  const count = view.getUint32(4, true);
  const dim = view.getUint32(8, true);
  const expected = 12 + count * 4 + count * dim;
  if (bytes.byteLength !== expected) {
    throw createError('INDEX_CORRUPT', source, `expected ${expected} bytes, found ${bytes.byteLength}`);
  }
  const scales = new Float32Array(count);
  for (let i = 0; i < count; i++) scales[i] = view.getFloat32(12 + i * 4, true);
  const data = new Int8Array(bytes.buffer, bytes.byteOffset + 12 + count * 4, count * dim);
  return { count, dim, scales, data };
}
