import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dequantize, floatToHalf, GGML_TYPE, halfToFloat, quantizeQ8_0 } from '../../../builder/models/ggml-quants.ts';
import { readGgufMetadata, readGgufTensors } from '../../../widget/core/format/gguf-file.ts';

// The blocks below are packed from the formats' definitions (which bit of which byte is element i),
// an independent statement of the layouts that ggml-quants.ts reads with ggml's loops.

const f16 = (x: number) => floatToHalf(x);

function q8Block(d: number, q: number[]): Uint8Array {
  const out = new Uint8Array(34);
  const view = new DataView(out.buffer);
  view.setUint16(0, f16(d), true);
  q.forEach((v, i) => view.setInt8(2 + i, v));
  return out;
}

/** Q5_0: element i's low 4 bits in byte i (i < 16) or the high nibble of byte i-16; its fifth bit is bit i of qh. */
function q5Block(d: number, q: number[]): Uint8Array {
  const out = new Uint8Array(22);
  const view = new DataView(out.buffer);
  view.setUint16(0, f16(d), true);
  let qh = 0;
  for (let i = 0; i < 32; i++) {
    const low = q[i] & 15;
    if (i < 16) out[6 + i] |= low;
    else out[6 + i - 16] |= low << 4;
    if (q[i] & 16) qh |= 1 << i;
  }
  view.setUint32(2, qh >>> 0, true);
  return out;
}

/** Q4_K: 8 sub-blocks of 32; sub-block s's nibbles are the low (s even) or high (s odd) halves of bytes 32·⌊s/2⌋…; 6-bit scale and min packed in 12 bytes. */
function q4kBlock(d: number, dmin: number, scales: number[], mins: number[], q: number[]): Uint8Array {
  const out = new Uint8Array(144);
  const view = new DataView(out.buffer);
  view.setUint16(0, f16(d), true);
  view.setUint16(2, f16(dmin), true);
  const packed = out.subarray(4, 16);
  for (let j = 0; j < 8; j++) {
    if (j < 4) {
      packed[j] |= scales[j] & 63;
      packed[j + 4] |= mins[j] & 63;
    } else {
      packed[j + 4] |= (scales[j] & 15) | ((mins[j] & 15) << 4);
      packed[j - 4] |= (scales[j] >> 4) << 6;
      packed[j] |= (mins[j] >> 4) << 6;
    }
  }
  for (let e = 0; e < 256; e++) {
    const s = e >> 5;
    const byte = 16 + (s >> 1) * 32 + (e & 31);
    out[byte] |= s & 1 ? q[e] << 4 : q[e];
  }
  return out;
}

/** Q6_K: two halves of 128; in a half, quarter k's element l has its low nibble in ql[l + 32·(k&1)] (high nibble when k ≥ 2), its top 2 bits at bits 2k of qh[l]; scale 8·half + ⌊l/16⌋ + 2k. */
function q6kBlock(d: number, scales: number[], q: number[]): Uint8Array {
  const out = new Uint8Array(210);
  const view = new DataView(out.buffer);
  for (let e = 0; e < 256; e++) {
    const half = e >> 7;
    const k = (e & 127) >> 5;
    const l = e & 31;
    const ql = half * 64 + l + (k & 1) * 32;
    out[ql] |= (q[e] & 15) << ((k >> 1) * 4);
    out[128 + half * 32 + l] |= (q[e] >> 4) << (2 * k);
  }
  scales.forEach((s, i) => view.setInt8(192 + i, s));
  view.setUint16(208, f16(d), true);
  return out;
}

const seq = (n: number, f: (i: number) => number) => Array.from({ length: n }, (_, i) => f(i));

describe('half floats', () => {
  it('reads and rounds IEEE half values exactly', () => {
    expect(halfToFloat(0x3c00)).toBe(1);
    expect(halfToFloat(0xc000)).toBe(-2);
    expect(halfToFloat(0x7bff)).toBe(65504);
    expect(halfToFloat(0x0001)).toBe(2 ** -24);
    expect(floatToHalf(1 / 3)).toBe(0x3555);
    expect(floatToHalf(-0.5)).toBe(0xb800);
    // Ties go to the even mantissa.
    expect(floatToHalf(1 + 2 ** -11)).toBe(0x3c00);
    expect(floatToHalf(1 + 3 * 2 ** -11)).toBe(0x3c02);
    expect(floatToHalf(65520)).toBe(0x7c00);
    expect(floatToHalf(2 ** -25)).toBe(0);
    expect(floatToHalf(3 * 2 ** -25)).toBe(0x0002);
    for (let h = 0; h < 0x7c00; h += 7) expect(floatToHalf(halfToFloat(h))).toBe(h);
  });
});

describe('ggml blocks', () => {
  it('Q8_0: d·q', () => {
    const q = seq(32, (i) => i * 8 - 128);
    expect([...dequantize(GGML_TYPE.Q8_0, q8Block(0.5, q), 32)]).toEqual(q.map((v) => v * 0.5));
  });

  it('Q5_0: d·(q − 16) with the fifth bit from qh', () => {
    const q = seq(32, (i) => (i * 7 + 3) % 32);
    const d = 0.25;
    expect([...dequantize(GGML_TYPE.Q5_0, q5Block(d, q), 32)]).toEqual(q.map((v) => (v - 16) * d));
  });

  it('Q4_K: d·scale·q − dmin·min per sub-block of 32', () => {
    const scales = [1, 63, 17, 40, 2, 33, 50, 9];
    const mins = [0, 5, 63, 32, 48, 1, 20, 61];
    const q = seq(256, (i) => (i * 5 + (i >> 5)) % 16);
    const d = 0.125;
    const dmin = 0.0625;
    const want = q.map((v, e) => d * scales[e >> 5] * v - dmin * mins[e >> 5]);
    expect([...dequantize(GGML_TYPE.Q4_K, q4kBlock(d, dmin, scales, mins, q), 256)]).toEqual(want);
  });

  it('Q6_K: d·scale·(q − 32) per 16 values', () => {
    const scales = [1, -2, 3, -4, 5, 127, -128, 8, 9, -10, 11, 12, -13, 14, 15, 16];
    const q = seq(256, (i) => (i * 11 + 7) % 64);
    const d = 0.5;
    const scaleOf = (e: number) => {
      const half = e >> 7;
      const k = (e & 127) >> 5;
      return scales[half * 8 + ((e & 31) >> 4) + 2 * k];
    };
    expect([...dequantize(GGML_TYPE.Q6_K, q6kBlock(d, scales, q), 256)]).toEqual(q.map((v, e) => d * scaleOf(e) * (v - 32)));
  });

  it('Q8_0 written: max|x|/127 as the scale, each value rounded half away from zero, read back within half a step', () => {
    const values = Float32Array.from(seq(64, (i) => Math.sin(i) * (i < 32 ? 1 : 0.01)));
    values[5] = -2; // the block's largest magnitude: q = −127, d = 2/127
    const bytes = quantizeQ8_0(values);
    expect(bytes.length).toBe(68);
    const view = new DataView(bytes.buffer);
    expect(view.getUint16(0, true)).toBe(floatToHalf(2 / 127));
    expect(view.getInt8(2 + 5)).toBe(-127);
    expect(view.getInt8(2 + 0)).toBe(0);
    const back = dequantize(GGML_TYPE.Q8_0, bytes, 64);
    for (let b = 0; b < 2; b++) {
      const block = values.subarray(32 * b, 32 * b + 32);
      const step = Math.max(...block.map(Math.abs)) / 127;
      for (let j = 0; j < 32; j++) expect(Math.abs(back[32 * b + j] - block[j])).toBeLessThanOrEqual(0.6 * step);
    }
    const zeros = quantizeQ8_0(new Float32Array(32));
    expect([...dequantize(GGML_TYPE.Q8_0, zeros, 32)].every((v) => v === 0)).toBe(true);
  });
});

const GEMMA = fileURLToPath(new URL('../../../models/gguf/gemma-3-270m-q4_k_m.gguf', import.meta.url));

describe('the PyPI Gemma', () => {
  // Reference values: gguf-py's gguf.quants.dequantize (the Python twin of ggml's C) on the same
  // tensors, the first 8 values of each (training/reader/.venv, gguf 0.17).
  it.skipIf(!existsSync(GEMMA))('dequantizes as gguf-py does (needs models/ from `models fetch`: skipped without it)', () => {
    const file = readFileSync(GEMMA);
    const meta = readGgufMetadata(file);
    const layout = readGgufTensors(file, meta);
    const first8 = (name: string) => {
      const t = layout.tensors.find((x) => x.name === name)!;
      const at = layout.dataStart + t.offset;
      return [...dequantize(t.type, file.subarray(at), t.dims[0] * t.dims[1]).subarray(0, 8)];
    };
    expect(first8('blk.9.attn_q.weight')).toEqual([0.02471923828125, 0.0098876953125, -0.0098876953125, 0.0098876953125, 0.0098876953125, -0.01483154296875, 0.01483154296875, -0.059326171875]);
    expect(first8('blk.9.attn_v.weight')).toEqual([-0.066650390625, -0.01666259765625, 0.0888671875, 0.04998779296875, 0.06109619140625, -0.07220458984375, 0.03887939453125, 0.04998779296875]);
    expect(first8('blk.9.attn_output.weight')).toEqual([
      -0.0020720958709716797, 0.004236698150634766, 0.016854286193847656, 0.016854286193847656, 0.010545492172241211, 0.029471874237060547, -0.02730727195739746, -0.020998477935791016,
    ]);
    expect(first8('blk.13.ffn_down.weight')).toEqual([
      -0.012972235679626465, -0.005765438079833984, -0.008648157119750977, -0.014413595199584961, 0.020179033279418945, 0.046123504638671875, 0.008648157119750977, -0.001441359519958496,
    ]);
  });
});
