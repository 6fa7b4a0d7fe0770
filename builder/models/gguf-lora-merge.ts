/**
 * A LoRA adapter merged into a GGUF: each adapted weight W (ggml's ne = [inputs, outputs], the
 * same row-major matrix as Hugging Face's [outputs, inputs] weight: checked against transformers'
 * GGUF loading of Gemma 3, which neither permutes nor offsets the projections) becomes
 * W + scale · B·A, written in `type` (Q8_0 by default: measured in training/reader/adapter/README.md
 * against F16). Every other tensor's bytes are copied unchanged; the metadata keeps its pairs in
 * order, with `general.name` and the `harel.reader.*` keys set.
 *
 * The same inputs give the same bytes everywhere: no clock, keys and tensors in a fixed order, and
 * the arithmetic fixed (each output row accumulated in doubles over the rank in order, rounded once
 * to float32; the quantizers round as ggml's reference code does, see ggml-quants.ts).
 */
import { createError } from '../errors.ts';
import { ggmlDataBytes, readGgufMetadata, readGgufTensors, type GgufTensorInfo } from '../../widget/core/format/gguf-file.ts';
import { dequantize, GGML_TYPE, ggmlBytes, ggmlTypeName, quantizeQ8_0, toF16 } from './ggml-quants.ts';
import type { LoraAdapter, LoraPair } from './lora-adapter.ts';

export type MergedType = 'Q8_0' | 'F16';

export interface MergeOptions {
  /** The merged tensors' format. */
  type: MergedType;
  /** String keys to set: replaced where the base has them, else appended in this order. */
  metadata: ReadonlyArray<readonly [string, string]>;
  /** The base's name in errors. */
  file: string;
}

/** A piece of the merged file, in order; `tensor` names the tensor a merged piece holds. */
export interface MergedPiece {
  bytes: Uint8Array;
  tensor?: string;
}

export interface MergePlan {
  /** The merged file's length. */
  bytes: number;
  /** The tensors the adapter changes (the pieces that take the time). */
  merged: number;
  pieces: Generator<MergedPiece, void, undefined>;
}

const GGUF_STRING = 8;

/**
 * Checks the adapter against the base (every pair's tensor there, of its shape and a type read
 * here) and plans the merged file; its pieces are computed as they are taken.
 */
export function planLoraMerge(base: Uint8Array, adapter: LoraAdapter, options: MergeOptions): MergePlan {
  const { file } = options;
  const meta = readGgufMetadata(base, file);
  const layout = readGgufTensors(base, meta, file);
  const byName = new Map(layout.tensors.map((t) => [t.name, t]));
  const changes = new Map<string, LoraPair>();
  for (const pair of adapter.pairs) {
    const tensor = byName.get(pair.tensor);
    if (!tensor) throw createError('READER_ADAPTER_INVALID', 'adapter_model.safetensors', `it adapts ${pair.tensor}, which ${file} does not have`);
    const [inputs, outputs, ...rest] = tensor.dims;
    if (inputs !== pair.inputs || outputs !== pair.outputs || rest.some((d) => d !== 1)) {
      throw createError(
        'READER_ADAPTER_INVALID',
        'adapter_model.safetensors',
        `${pair.tensor} is ${tensor.dims.join('×')} (inputs×outputs) in ${file}, the adapter's B·A is ${pair.inputs}×${pair.outputs}`,
      );
    }
    if (ggmlBytes(tensor.type, inputs * outputs) === null) throw createError('MODEL_FILE_INVALID', file, `${pair.tensor} is stored as ${ggmlTypeName(tensor.type)}, which the merge does not read`);
    if (options.type === 'Q8_0' && inputs % 32 !== 0) throw createError('READER_ADAPTER_INVALID', 'adapter_model.safetensors', `${pair.tensor}: rows of ${inputs} are not whole Q8_0 blocks of 32`);
    changes.set(pair.tensor, pair);
  }
  const typeId = GGML_TYPE[options.type];
  const sizes = layout.tensors.map((t) => {
    const size = changes.has(t.name) ? ggmlBytes(typeId, t.dims[0] * t.dims[1]) : ggmlDataBytes(t.type, t.dims);
    if (size === null) throw createError('MODEL_FILE_INVALID', file, `tensor ${t.name} has ggml type ${t.type}, unknown here`);
    const end = layout.dataStart + t.offset + (ggmlDataBytes(t.type, t.dims) ?? 0);
    if (!(end <= base.length)) throw createError('MODEL_FILE_INVALID', file, `truncated: tensor ${t.name} ends at byte ${end}, the file has ${base.length}`);
    return size;
  });

  const align = (n: number) => Math.ceil(n / layout.alignment) * layout.alignment;
  const offsets: number[] = [];
  let dataBytes = 0;
  for (const size of sizes) {
    offsets.push(dataBytes);
    dataBytes = align(dataBytes + size);
  }
  const head = writeHead(base, meta.version, meta.spans, options.metadata, layout.tensors, (t, i) => ({
    type: changes.has(t.name) ? typeId : t.type,
    offset: offsets[i],
  }));
  const headBytes = align(head.length);

  function* pieces(): Generator<MergedPiece, void, undefined> {
    const start = new Uint8Array(headBytes);
    start.set(head);
    yield { bytes: start };
    for (const [i, tensor] of layout.tensors.entries()) {
      const pair = changes.get(tensor.name);
      const from = layout.dataStart + tensor.offset;
      const bytes = pair ? mergeTensor(base.subarray(from), tensor, pair, adapter.scale, options.type) : base.subarray(from, from + sizes[i]);
      yield { bytes, tensor: pair ? tensor.name : undefined };
      const padding = align(sizes[i]) - sizes[i];
      if (padding) yield { bytes: new Uint8Array(padding) };
    }
  }
  return { bytes: headBytes + dataBytes, merged: changes.size, pieces: pieces() };
}

/** W + scale·B·A in float32, stored as `type`. */
function mergeTensor(data: Uint8Array, tensor: GgufTensorInfo, pair: LoraPair, scale: number, type: MergedType): Uint8Array {
  const { inputs, outputs, rank, a, b } = pair;
  const weight = dequantize(tensor.type, data, inputs * outputs);
  const row = new Float64Array(inputs);
  for (let o = 0; o < outputs; o++) {
    row.fill(0);
    for (let k = 0; k < rank; k++) {
      const coefficient = b[o * rank + k];
      const from = k * inputs;
      for (let i = 0; i < inputs; i++) row[i] += coefficient * a[from + i];
    }
    const at = o * inputs;
    for (let i = 0; i < inputs; i++) weight[at + i] = Math.fround(weight[at + i] + Math.fround(scale * row[i]));
  }
  return type === 'Q8_0' ? quantizeQ8_0(weight) : toF16(weight);
}

/** The header, the metadata (kept pairs copied byte for byte, set ones written) and the tensor descriptions. */
function writeHead(
  base: Uint8Array,
  version: number,
  spans: Map<string, [number, number]>,
  set: ReadonlyArray<readonly [string, string]>,
  tensors: GgufTensorInfo[],
  placed: (tensor: GgufTensorInfo, index: number) => { type: number; offset: number },
): Uint8Array {
  const parts: Uint8Array[] = [];
  const encoder = new TextEncoder();
  const u32 = (n: number) => {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, n, true);
    parts.push(b);
  };
  const u64 = (n: number) => {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(n), true);
    parts.push(b);
  };
  const string = (s: string) => {
    const bytes = encoder.encode(s);
    u64(bytes.length);
    parts.push(bytes);
  };
  const values = new Map(set);
  const appended = set.filter(([key]) => !spans.has(key));
  parts.push(encoder.encode('GGUF'));
  u32(version);
  u64(tensors.length);
  u64(spans.size + appended.length);
  const writePair = (key: string, value: string) => {
    string(key);
    u32(GGUF_STRING);
    string(value);
  };
  for (const [key, [start, end]] of spans) {
    const value = values.get(key);
    if (value === undefined) parts.push(base.subarray(start, end));
    else writePair(key, value);
  }
  for (const [key, value] of appended) writePair(key, value);
  for (const [i, tensor] of tensors.entries()) {
    const { type, offset } = placed(tensor, i);
    string(tensor.name);
    u32(tensor.dims.length);
    for (const d of tensor.dims) u64(d);
    u32(type);
    u64(offset);
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
