/**
 * The metadata of a GGUF file (llama.cpp's model format): header and key/value pairs, read
 * without the tensors. Enough to tell what a file is (architecture, name, base or instruction-
 * tuned, chat template, context length) and to refuse what is not a GGUF before a browser
 * downloads it. Layout (little-endian): "GGUF", u32 version (2 or 3), u64 tensor count, u64
 * key/value count, then each key (u64 length + UTF-8) with a u32 type and its value.
 */
import { createError } from '../errors.ts';

export type GgufValue = number | bigint | boolean | string | GgufValue[];

export interface GgufMetadata {
  version: number;
  tensorCount: number;
  values: Map<string, GgufValue>;
  /** Where the key/value pairs end: the tensor descriptions start here (the widget checks a file's length from them). */
  metadataEnd: number;
  /** Each key/value pair's bytes [start, end), key first: a writer copies the pairs it keeps unchanged. */
  spans: Map<string, [number, number]>;
}

/** Reads the metadata from the first bytes of a file (a few MB hold it: the vocabulary is there). */
export function readGgufMetadata(bytes: Uint8Array, file = 'model.gguf'): GgufMetadata {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = 0;
  const fail = (reason: string) => createError('MODEL_FILE_INVALID', file, reason);
  const need = (n: number) => {
    if (at + n > bytes.length) throw fail(`truncated metadata at byte ${at}`);
  };
  const u32 = () => (need(4), (at += 4), view.getUint32(at - 4, true));
  const u64 = () => {
    need(8);
    const v = view.getBigUint64(at, true);
    at += 8;
    return v;
  };
  const length = () => {
    const n = u64();
    if (n > BigInt(bytes.length)) throw fail(`a length of ${n} bytes is past the end`);
    return Number(n);
  };
  const string = () => {
    const n = length();
    need(n);
    at += n;
    return new TextDecoder().decode(bytes.subarray(at - n, at));
  };
  const value = (type: number, depth = 0): GgufValue => {
    switch (type) {
      case 0:
        return (need(1), bytes[at++]);
      case 1:
        return (need(1), view.getInt8(at++));
      case 2:
        return (need(2), (at += 2), view.getUint16(at - 2, true));
      case 3:
        return (need(2), (at += 2), view.getInt16(at - 2, true));
      case 4:
        return u32();
      case 5:
        return (need(4), (at += 4), view.getInt32(at - 4, true));
      case 6:
        return (need(4), (at += 4), view.getFloat32(at - 4, true));
      case 7:
        return (need(1), bytes[at++] !== 0);
      case 8:
        return string();
      case 9: {
        if (depth > 2) throw fail('arrays nested too deep');
        const itemType = u32();
        const count = length();
        const items: GgufValue[] = [];
        for (let i = 0; i < count; i++) items.push(value(itemType, depth + 1));
        return items;
      }
      case 10:
        return u64();
      case 11:
        return (need(8), (at += 8), view.getBigInt64(at - 8, true));
      case 12:
        return (need(8), (at += 8), view.getFloat64(at - 8, true));
      default:
        throw fail(`unknown value type ${type}`);
    }
  };

  need(4);
  const magic = new TextDecoder().decode(bytes.subarray(0, 4));
  if (magic !== 'GGUF') throw fail(`it does not start with "GGUF" (found ${JSON.stringify(magic)}): not a GGUF model`);
  at = 4;
  const version = u32();
  if (version < 2 || version > 3) throw fail(`GGUF version ${version} (2 and 3 are read)`);
  const tensorCount = Number(u64());
  const count = Number(u64());
  const values = new Map<string, GgufValue>();
  const spans = new Map<string, [number, number]>();
  for (let i = 0; i < count; i++) {
    const start = at;
    const key = string();
    values.set(key, value(u32()));
    spans.set(key, [start, at]);
  }
  return { version, tensorCount, values, metadataEnd: at, spans };
}

/** ggml's elements per block and bytes per block, by type id (ggml.h), for the types GGUF files use. */
export const GGML_BLOCK_SIZES: Readonly<Record<number, readonly [number, number]>> = {
  0: [1, 4],
  1: [1, 2],
  2: [32, 18],
  3: [32, 20],
  6: [32, 22],
  7: [32, 24],
  8: [32, 34],
  9: [32, 36],
  10: [256, 84],
  11: [256, 110],
  12: [256, 144],
  13: [256, 176],
  14: [256, 210],
  15: [256, 292],
  16: [256, 66],
  17: [256, 74],
  18: [256, 98],
  19: [256, 50],
  20: [32, 18],
  21: [256, 110],
  22: [256, 82],
  23: [256, 136],
  24: [1, 1],
  25: [1, 2],
  26: [1, 4],
  27: [1, 8],
  28: [1, 8],
  29: [256, 56],
  30: [1, 2],
};

/** The bytes a tensor's data takes; null when its type is not in GGML_BLOCK_SIZES. */
export function ggmlDataBytes(type: number, dims: readonly number[]): number | null {
  const size = GGML_BLOCK_SIZES[type];
  if (!size) return null;
  const elements = dims.reduce((a, b) => a * b, 1);
  return Math.ceil(elements / size[0]) * size[1];
}

export interface GgufTensorInfo {
  name: string;
  /** ggml's ne: the first is the length of a row (for a weight, its input features). */
  dims: number[];
  /** ggml type id (ggml.h). */
  type: number;
  /** From the start of the data section. */
  offset: number;
}

export interface GgufTensors {
  tensors: GgufTensorInfo[];
  /** Where the tensor descriptions end. */
  descriptionsEnd: number;
  /** `general.alignment`, 32 where absent. */
  alignment: number;
  /** Where the data section starts: the descriptions' end, rounded up to the alignment. */
  dataStart: number;
}

/**
 * Reads the tensor descriptions that follow the metadata (name, dimensions, type, offset each).
 * Throws MODEL_FILE_INVALID when they run past `bytes` ("tensor descriptions run past the end").
 */
export function readGgufTensors(bytes: Uint8Array, meta: GgufMetadata, file = 'model.gguf'): GgufTensors {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let at = meta.metadataEnd;
  const need = (n: number) => {
    if (!(at + n <= bytes.length)) throw createError('MODEL_FILE_INVALID', file, `its tensor descriptions run past the end at byte ${at}`);
  };
  const tensors: GgufTensorInfo[] = [];
  for (let i = 0; i < meta.tensorCount; i++) {
    need(8);
    const nameLength = Number(view.getBigUint64(at, true));
    need(8 + nameLength + 4);
    const name = new TextDecoder().decode(bytes.subarray(at + 8, at + 8 + nameLength));
    at += 8 + nameLength;
    const count = view.getUint32(at, true);
    at += 4;
    if (count > 4) throw createError('MODEL_FILE_INVALID', file, `tensor ${name} has ${count} dimensions (at most 4)`);
    need(8 * count + 12);
    const dims: number[] = [];
    for (let d = 0; d < count; d++) dims.push(Number(view.getBigUint64(at + 8 * d, true)));
    at += 8 * count;
    const type = view.getUint32(at, true);
    const offset = Number(view.getBigUint64(at + 4, true));
    at += 12;
    tensors.push({ name, dims, type, offset });
  }
  const declared = meta.values.get('general.alignment');
  const alignment = typeof declared === 'number' && declared > 0 ? declared : 32;
  return { tensors, descriptionsEnd: at, alignment, dataStart: Math.ceil(at / alignment) * alignment };
}

export interface GgufSummary {
  architecture: string;
  name: string;
  /** 'instruction-tuned' when the name, fine-tune tag or chat template says so, else 'base'. */
  kind: 'instruction-tuned' | 'base';
  contextLength: number | null;
  chatTemplate: string | null;
  quantization: string | null;
}

export function summarizeGguf(meta: GgufMetadata): GgufSummary {
  const text = (key: string) => {
    const v = meta.values.get(key);
    return typeof v === 'string' ? v : null;
  };
  const architecture = text('general.architecture') ?? 'unknown';
  const name = text('general.name') ?? text('general.basename') ?? 'unnamed';
  const context = meta.values.get(`${architecture}.context_length`);
  const chatTemplate = text('tokenizer.chat_template');
  const tuned = /\b(it|instruct|chat)\b/i.test(`${name} ${text('general.finetune') ?? ''}`);
  const fileType = meta.values.get('general.file_type');
  return {
    architecture,
    name,
    kind: tuned ? 'instruction-tuned' : 'base',
    contextLength: typeof context === 'number' ? context : typeof context === 'bigint' ? Number(context) : null,
    chatTemplate,
    quantization: typeof fileType === 'number' ? (FILE_TYPES[fileType] ?? `type ${fileType}`) : null,
  };
}

// llama.cpp's llama_ftype values for the ones a browser build would meet.
const FILE_TYPES: Record<number, string> = {
  0: 'F32',
  1: 'F16',
  2: 'Q4_0',
  3: 'Q4_1',
  7: 'Q8_0',
  8: 'Q5_0',
  9: 'Q5_1',
  10: 'Q2_K',
  12: 'Q3_K_M',
  14: 'Q4_K_S',
  15: 'Q4_K_M',
  16: 'Q5_K_S',
  17: 'Q5_K_M',
  18: 'Q6_K',
  32: 'BF16',
};
