/**
 * The `.q4w` weights file (widget/core/embedding/q4-weights.ts): what the converter writes, the
 * widget expands to exactly the fp32 matrices (transposed, for MatMul) that the Q4_0 blocks hold;
 * a file that is not one is refused with a reason, never read as weights.
 */
import { describe, expect, it } from 'vitest';
import { encodeQ4Weights, expandQ4Weights, layoutQ4Weights } from '../../../widget/core/embedding/q4-weights.ts';

/** Q4_0 blocks of a rows × cols matrix whose weight (r, c) is (nibble(r, c) − 8) · scale(r, block). */
function q4Matrix(rows: number, cols: number, seed: number): { blocks: Uint8Array; value: (r: number, c: number) => number } {
  const perRow = cols / 32;
  const blocks = new Uint8Array(rows * perRow * 18);
  const nibble = (r: number, c: number) => (r * 7 + c * 3 + seed) % 16;
  // fp16 scales: 0.5, 0.25, 1, 2 (exact in fp16: 0x3800, 0x3400, 0x3c00, 0x4000), and one negative.
  const scales = [0x3800, 0x3400, 0x3c00, 0x4000, 0xb800];
  const scaleOf = (r: number, b: number) => scales[(r + b + seed) % scales.length];
  const asFloat = (bits: number) => ({ 14336: 0.5, 13312: 0.25, 15360: 1, 16384: 2, 47104: -0.5 })[bits] as number;
  for (let r = 0; r < rows; r++) {
    for (let b = 0; b < perRow; b++) {
      const at = (r * perRow + b) * 18;
      const bits = scaleOf(r, b);
      blocks[at] = bits & 0xff;
      blocks[at + 1] = bits >> 8;
      for (let j = 0; j < 16; j++) blocks[at + 2 + j] = nibble(r, b * 32 + j) | (nibble(r, b * 32 + j + 16) << 4);
    }
  }
  return { blocks, value: (r, c) => (nibble(r, c) - 8) * asFloat(scaleOf(r, Math.floor(c / 32))) };
}

describe('.q4w weights', () => {
  it('expand to each matrix transposed, at the offsets the layout gives, in one external file', () => {
    const a = q4Matrix(3, 64, 1);
    const b = q4Matrix(5, 32, 4);
    const { tensors } = layoutQ4Weights([
      { name: 'a.weight', rows: 3, cols: 64 },
      { name: 'b.weight', rows: 5, cols: 32 },
    ]);
    expect(tensors.map((t) => t.offset)).toEqual([0, 3 * 64 * 4]);
    const file = encodeQ4Weights({ location: 'w.bin', tensors }, [a.blocks, b.blocks]);
    const { location, data } = expandQ4Weights(file);
    expect(location).toBe('w.bin');
    const values = new Float32Array(data.buffer, data.byteOffset, data.byteLength / 4);
    expect(values.length).toBe(3 * 64 + 5 * 32);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 64; c++) expect(values[c * 3 + r]).toBe(a.value(r, c));
    for (let r = 0; r < 5; r++) for (let c = 0; c < 32; c++) expect(values[192 + c * 5 + r]).toBe(b.value(r, c));
  });

  it('refuses a file that is not one: another file, a newer version, a truncated one, a header that lies', () => {
    const m = q4Matrix(2, 32, 0);
    const { tensors } = layoutQ4Weights([{ name: 'm', rows: 2, cols: 32 }]);
    const good = encodeQ4Weights({ location: 'w.bin', tensors }, [m.blocks]);
    expect(() => expandQ4Weights(new TextEncoder().encode('<!doctype html><title>404</title>'))).toThrow(/not a \.q4w/);
    const newer = good.slice();
    newer[4] = 2;
    expect(() => expandQ4Weights(newer)).toThrow(/version 2/);
    expect(() => expandQ4Weights(good.subarray(0, good.length - 5))).toThrow(/bytes of blocks/);
    const lying = encodeQ4Weights({ location: 'w.bin', tensors: [{ ...tensors[0], cols: 33 }] }, [m.blocks]);
    expect(() => expandQ4Weights(lying)).toThrow(/shape, kind or offset/);
  });

  it('expand an i8 tensor to int8 per output channel with its scales: each weight within half a step of its value', () => {
    const m = q4Matrix(4, 64, 2);
    const { tensors } = layoutQ4Weights([{ name: 'm.weight_i8', rows: 4, cols: 64, kind: 'i8', scaleName: 'm.weight_scale' }]);
    expect(tensors[0]).toMatchObject({ offset: 0, scaleOffset: 256 });
    const { data } = expandQ4Weights(encodeQ4Weights({ location: 'w.bin', tensors }, [m.blocks]));
    expect(data.byteLength).toBe(256 + 16);
    const values = new Int8Array(data.buffer, data.byteOffset, 256);
    const scales = new Float32Array(data.buffer, data.byteOffset + 256, 4);
    for (let r = 0; r < 4; r++) {
      let max = 0;
      for (let c = 0; c < 64; c++) max = Math.max(max, Math.abs(m.value(r, c)));
      expect(scales[r]).toBeCloseTo(max / 127, 6);
      for (let c = 0; c < 64; c++) {
        const q = values[c * 4 + r];
        expect(Math.abs(q)).toBeLessThanOrEqual(127);
        expect(Math.abs(q * scales[r] - m.value(r, c))).toBeLessThanOrEqual(scales[r] / 2 + 1e-6);
      }
    }
  });
});
