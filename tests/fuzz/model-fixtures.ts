/**
 * Small stand-ins for the model files the widget reads, for the model-file fuzzer
 * (tests/fuzz/model-files.ts) and the Chromium check of a broken weights file
 * (tests/e2e/query-model.spec.ts):
 * - a 'q4f32' pair for the tiny TEST embedder: `model_q4f32.onnx`, whose token table is external
 *   data, and `model_q4f32.q4w`, that table as Q4_0 blocks (widget/core/embedding/q4-weights.ts),
 *   so the widget's q4f32 path (expand the blocks, hand them to onnxruntime as external data)
 *   runs on a model of a few kilobytes. Seeded weights: its vectors mean nothing, it only loads
 *   and embeds like the real E5's pair;
 * - a GGUF v3 file of a supported architecture with two tensors, read by the widget's GGUF checks.
 */
import { DataType, encodeModel } from '../../builder/models/onnx-proto.ts';
import { encodeQ4Weights, layoutQ4Weights, Q4_BLOCK } from '../../widget/core/embedding/q4-weights.ts';

/** The external file name the fixture's graph gives its table (any name: the widget passes the bytes). */
const EXTERNAL = 'model_q4f32.onnx_data';

/** xorshift32: the same bytes on every machine. */
function bytesFrom(seed: number, length: number): Uint8Array {
  let state = seed >>> 0 || 1;
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    out[i] = state & 0xff;
  }
  return out;
}

/**
 * The tiny embedder's q4f32 pair, for the vocabulary of its `tokenizer.json` (its size rounded
 * up to whole Q4 blocks): last_hidden_state = Gather(table, input_ids) · attention_mask, the
 * table [pieces][dimensions] expanded from the `.q4w` blocks.
 */
export function tinyQ4f32Pair(tokenizerJson: Uint8Array, dimensions = 32): { onnx: Uint8Array; q4w: Uint8Array } {
  const vocab = (JSON.parse(new TextDecoder().decode(tokenizerJson)) as { model: { vocab: unknown[] } }).model.vocab.length;
  const pieces = Math.ceil(vocab / Q4_BLOCK) * Q4_BLOCK;
  // Stored [rows][cols] = [dimensions][pieces]; the widget expands it transposed: [pieces][dimensions].
  const { tensors, bytes } = layoutQ4Weights([{ name: 'embeddings', rows: dimensions, cols: pieces }]);
  const blocks = bytesFrom(27, (dimensions * pieces * 18) / Q4_BLOCK);
  for (let at = 0; at < blocks.length; at += 18) {
    // fp16 0.0999: weights in ±0.8, as a trained table's are.
    blocks[at] = 0x66;
    blocks[at + 1] = 0x2e;
  }
  const q4w = encodeQ4Weights({ location: EXTERNAL, tensors }, [blocks]);
  const axes = new BigInt64Array([-1n]);
  const onnx = encodeModel(
    {
      name: 'tiny-embedder-q4f32',
      nodes: [
        { op: 'Gather', inputs: ['embeddings', 'input_ids'], outputs: ['token_vectors'], name: 'lookup' },
        { op: 'Cast', inputs: ['attention_mask'], outputs: ['mask_float'], name: 'mask_cast', attributes: { to: DataType.FLOAT } },
        { op: 'Unsqueeze', inputs: ['mask_float', 'axes'], outputs: ['mask_3d'], name: 'mask_unsqueeze' },
        { op: 'Mul', inputs: ['token_vectors', 'mask_3d'], outputs: ['last_hidden_state'], name: 'apply_mask' },
      ],
      initializers: [
        { name: 'embeddings', dataType: DataType.FLOAT, dims: [pieces, dimensions], raw: new Uint8Array(0), external: { location: EXTERNAL, offset: 0, length: bytes } },
        { name: 'axes', dataType: DataType.INT64, dims: [1], raw: new Uint8Array(axes.buffer) },
      ],
      inputs: [
        { name: 'input_ids', elemType: DataType.INT64, shape: ['batch', 'sequence'] },
        { name: 'attention_mask', elemType: DataType.INT64, shape: ['batch', 'sequence'] },
      ],
      outputs: [{ name: 'last_hidden_state', elemType: DataType.FLOAT, shape: ['batch', 'sequence', dimensions] }],
    },
    { producer: 'harel-chat test fixture' },
  );
  return { onnx, q4w };
}

/**
 * A GGUF v3 file the widget's checks accept: a Gemma 3 header with its turn tokens, two Q4_K
 * tensors (256 and 512 weights) and their data, aligned to 32 bytes.
 */
export function tinyGguf(): Uint8Array {
  const parts: number[] = [];
  const u32 = (n: number) => parts.push(...new Uint8Array(new Uint32Array([n]).buffer));
  const u64 = (n: number) => parts.push(...new Uint8Array(new BigUint64Array([BigInt(n)]).buffer));
  const str = (s: string) => {
    const b = new TextEncoder().encode(s);
    u64(b.length);
    parts.push(...b);
  };
  const kvs: [string, string | number | string[]][] = [
    ['general.architecture', 'gemma3'],
    ['general.name', 'Tiny fuzz fixture'],
    ['gemma3.context_length', 2048],
    ['general.alignment', 32],
    ['tokenizer.ggml.tokens', ['<pad>', '<eos>', '<bos>', '<start_of_turn>', '<end_of_turn>', 'a', 'b']],
  ];
  parts.push(...new TextEncoder().encode('GGUF'));
  u32(3);
  u64(2);
  u64(kvs.length);
  for (const [key, value] of kvs) {
    str(key);
    if (typeof value === 'string') u32(8), str(value);
    else if (typeof value === 'number') u32(4), u32(value);
    else {
      u32(9);
      u32(8);
      u64(value.length);
      value.forEach(str);
    }
  }
  // Q4_K (type 12): 256 weights a block, 144 bytes.
  const tensors: [string, number, number][] = [
    ['token_embd.weight', 256, 0],
    ['blk.0.attn_q.weight', 512, 160],
  ];
  for (const [name, elements, offset] of tensors) {
    str(name);
    u32(1);
    u64(elements);
    u32(12);
    u64(offset);
  }
  while (parts.length % 32) parts.push(0);
  const data = bytesFrom(5, 160 + 288);
  return new Uint8Array([...parts, ...data]);
}
