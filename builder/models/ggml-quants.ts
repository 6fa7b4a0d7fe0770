/**
 * ggml's tensor formats, as llama.cpp's ggml-quants.c lays them out: the half-precision float, the
 * block formats the PyPI Gemma's projections use (Q4_K, Q5_0, Q6_K, Q8_0; F32 and F16 beside them)
 * read back to float32, and Q8_0 written. `models fetch` merges the reader's LoRA into those
 * projections with them (gemma-reader.ts).
 *
 * Hand-written rather than a dependency: no npm package reads ggml's K-quants, and the merge must
 * give the same bytes on every machine, so the arithmetic is spelled out here as ggml's reference C
 * does it: every float32 operation of the C code is one `Math.fround` here (JavaScript numbers are
 * IEEE-754 doubles with no fused multiply-add, so each step rounds the same everywhere).
 */
import { GGML_BLOCK_SIZES } from '../../widget/core/format/gguf-file.ts';

/** ggml type ids (ggml.h) of the formats read here. */
export const GGML_TYPE = { F32: 0, F16: 1, Q5_0: 6, Q8_0: 8, Q4_K: 12, Q6_K: 14 } as const;

export type GgmlTypeName = keyof typeof GGML_TYPE;

export function ggmlTypeName(type: number): string {
  return Object.entries(GGML_TYPE).find(([, id]) => id === type)?.[0] ?? `type ${type}`;
}

/** Bytes `elements` values take in `type`, or null when the type is not read here or the count is not whole blocks. */
export function ggmlBytes(type: number, elements: number): number | null {
  const block = GGML_BLOCK_SIZES[type];
  if (!block || !Object.values(GGML_TYPE).includes(type as (typeof GGML_TYPE)[GgmlTypeName]) || elements % block[0] !== 0) return null;
  return (elements / block[0]) * block[1];
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE half (as its 16 bits) → number; exact. */
export function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 31) return mantissa ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * (1024 + mantissa) * 2 ** (exponent - 25);
}

/** float32 → IEEE half bits, rounded to nearest, ties to even (as the F16C instruction and numpy do). */
export function floatToHalf(value: number): number {
  f32[0] = value;
  const bits = u32[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = (bits >>> 23) & 0xff;
  let mantissa = bits & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 31) return sign | 0x7c00;
  if (e <= 0) {
    // Subnormal half (or zero): shift the full mantissa into place, rounding to nearest even.
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mantissa & ((1 << shift) - 1);
    let out = mantissa >>> shift;
    if (rest > half || (rest === half && out & 1)) out += 1;
    return sign | out;
  }
  const rest = mantissa & 0x1fff;
  let out = (e << 10) | (mantissa >>> 13);
  // A carry out of the mantissa bumps the exponent, up to infinity: the bits' order makes that right.
  if (rest > 0x1000 || (rest === 0x1000 && out & 1)) out += 1;
  return sign | out;
}

/**
 * Reads `elements` values of a tensor stored as `type` from `bytes` (its data, from the start).
 * Throws a plain Error for a type not read here; callers word it for the user.
 */
export function dequantize(type: number, bytes: Uint8Array, elements: number): Float32Array {
  const need = ggmlBytes(type, elements);
  if (need === null) throw new Error(`ggml type ${ggmlTypeName(type)} with ${elements} elements is not read here`);
  if (bytes.length < need) throw new Error(`${need} bytes needed, ${bytes.length} given`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, need);
  const out = new Float32Array(elements);
  const half = (at: number) => halfToFloat(view.getUint16(at, true));
  const fr = Math.fround;
  switch (type) {
    case GGML_TYPE.F32:
      for (let i = 0; i < elements; i++) out[i] = view.getFloat32(4 * i, true);
      return out;
    case GGML_TYPE.F16:
      for (let i = 0; i < elements; i++) out[i] = half(2 * i);
      return out;
    case GGML_TYPE.Q8_0:
      // d (f16), then 32 int8: x = d·q.
      for (let at = 0, y = 0; y < elements; at += 34) {
        const d = half(at);
        for (let j = 0; j < 32; j++) out[y++] = fr(d * view.getInt8(at + 2 + j));
      }
      return out;
    case GGML_TYPE.Q5_0:
      // d (f16), qh (32 high bits), 16 bytes of low nibbles: element j and j+16 share byte j.
      for (let at = 0, y = 0; y < elements; at += 22, y += 32) {
        const d = half(at);
        const qh = view.getUint32(at + 2, true);
        for (let j = 0; j < 16; j++) {
          const q = bytes[at + 6 + j];
          const high0 = ((qh >>> j) << 4) & 0x10;
          const high1 = (qh >>> (j + 12)) & 0x10;
          out[y + j] = fr((((q & 0x0f) | high0) - 16) * d);
          out[y + j + 16] = fr((((q >> 4) | high1) - 16) * d);
        }
      }
      return out;
    case GGML_TYPE.Q4_K:
      // d, dmin (f16), 12 bytes of eight 6-bit scale/min pairs, 128 bytes of nibbles; 64 values a pair of sub-blocks.
      for (let at = 0, y = 0; y < elements; at += 144) {
        const d = half(at);
        const min = half(at + 2);
        const scales = bytes.subarray(at + 4, at + 16);
        let q = at + 16;
        for (let j = 0, is = 0; j < 256; j += 64, is += 2, q += 32) {
          const [sc1, m1] = scaleMinK4(is, scales);
          const [sc2, m2] = scaleMinK4(is + 1, scales);
          const d1 = fr(d * sc1);
          const dm1 = fr(min * m1);
          const d2 = fr(d * sc2);
          const dm2 = fr(min * m2);
          for (let l = 0; l < 32; l++) out[y++] = fr(fr(d1 * (bytes[q + l] & 0xf)) - dm1);
          for (let l = 0; l < 32; l++) out[y++] = fr(fr(d2 * (bytes[q + l] >> 4)) - dm2);
        }
      }
      return out;
    case GGML_TYPE.Q6_K:
      // 128 bytes low nibbles, 64 bytes of 2-bit highs, 16 int8 scales, d (f16); two halves of 128.
      for (let at = 0, y = 0; y < elements; at += 210) {
        const d = half(at + 208);
        let ql = at;
        let qh = at + 128;
        let sc = at + 192;
        for (let n = 0; n < 256; n += 128, ql += 64, qh += 32, sc += 8, y += 128) {
          for (let l = 0; l < 32; l++) {
            const is = l >> 4;
            const h = bytes[qh + l];
            const q1 = ((bytes[ql + l] & 0xf) | ((h & 3) << 4)) - 32;
            const q2 = ((bytes[ql + l + 32] & 0xf) | (((h >> 2) & 3) << 4)) - 32;
            const q3 = ((bytes[ql + l] >> 4) | (((h >> 4) & 3) << 4)) - 32;
            const q4 = ((bytes[ql + l + 32] >> 4) | (((h >> 6) & 3) << 4)) - 32;
            out[y + l] = fr(fr(d * view.getInt8(sc + is)) * q1);
            out[y + l + 32] = fr(fr(d * view.getInt8(sc + is + 2)) * q2);
            out[y + l + 64] = fr(fr(d * view.getInt8(sc + is + 4)) * q3);
            out[y + l + 96] = fr(fr(d * view.getInt8(sc + is + 6)) * q4);
          }
        }
      }
      return out;
    default:
      throw new Error(`ggml type ${ggmlTypeName(type)} is not read here`);
  }
}

/** Q4_K's packed 6-bit scale and min of sub-block j (get_scale_min_k4). */
function scaleMinK4(j: number, q: Uint8Array): [number, number] {
  if (j < 4) return [q[j] & 63, q[j + 4] & 63];
  return [(q[j + 4] & 0xf) | ((q[j - 4] >> 6) << 4), (q[j + 4] >> 4) | ((q[j] >> 6) << 4)];
}

/** float32 values → Q8_0 blocks (quantize_row_q8_0_ref): d = max|x|/127 as f16, q = round(x/d) away from zero. */
export function quantizeQ8_0(values: Float32Array): Uint8Array {
  if (values.length % 32 !== 0) throw new Error(`Q8_0 takes whole blocks of 32 values, not ${values.length}`);
  const out = new Uint8Array((values.length / 32) * 34);
  const view = new DataView(out.buffer);
  const fr = Math.fround;
  for (let at = 0, x = 0; x < values.length; at += 34, x += 32) {
    let amax = 0;
    for (let j = 0; j < 32; j++) amax = Math.max(amax, Math.abs(values[x + j]));
    const d = fr(amax / 127);
    const id = d ? fr(1 / d) : 0;
    view.setUint16(at, floatToHalf(d), true);
    for (let j = 0; j < 32; j++) {
      const scaled = fr(values[x + j] * id);
      view.setInt8(at + 2 + j, Math.sign(scaled) * Math.round(Math.abs(scaled)));
    }
  }
  return out;
}

/** float32 values → F16, rounded to nearest even. */
export function toF16(values: Float32Array): Uint8Array {
  const out = new Uint8Array(values.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < values.length; i++) view.setUint16(2 * i, floatToHalf(values[i]), true);
  return out;
}
