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
import { DataType } from '../../builder/models/onnx-proto.ts';
import { lookupModel } from '../fixtures/tiny-embedder/write-tiny-embedder.ts';
import { encodeQ4Weights, layoutQ4Weights, Q4_BLOCK } from '../../widget/core/embedding/q4-weights.ts';
import { encodeGguf } from '../fixtures/gguf/write-gguf.ts';

/** GGML's Q4_K tensor type: 256 weights a block, 144 bytes. */
const GGML_Q4_K = 12;

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
  const onnx = lookupModel('tiny-embedder-q4f32', {
    name: 'embeddings',
    dataType: DataType.FLOAT,
    dims: [pieces, dimensions],
    raw: new Uint8Array(0),
    external: { location: EXTERNAL, offset: 0, length: bytes },
  });
  return { onnx, q4w };
}

/**
 * A GGUF v3 file the widget's checks accept: a Gemma 3 header with its turn tokens, two Q4_K
 * tensors (256 and 512 weights) and their data, aligned to 32 bytes.
 */
export function tinyGguf(): Uint8Array {
  return encodeGguf(
    [
      ['general.architecture', 'gemma3'],
      ['general.name', 'Tiny fuzz fixture'],
      ['gemma3.context_length', 2048],
      ['general.alignment', 32],
      ['tokenizer.ggml.tokens', ['<pad>', '<eos>', '<bos>', '<start_of_turn>', '<end_of_turn>', 'a', 'b']],
    ],
    [
      { name: 'token_embd.weight', elements: 256, type: GGML_Q4_K, offset: 0 },
      { name: 'blk.0.attn_q.weight', elements: 512, type: GGML_Q4_K, offset: 160 },
    ],
    bytesFrom(5, 160 + 288),
  );
}
