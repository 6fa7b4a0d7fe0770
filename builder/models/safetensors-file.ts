/**
 * A safetensors file (Hugging Face's tensor format, what peft writes an adapter in) read to
 * float32: u64 little-endian header length, that many bytes of JSON ({name: {dtype, shape,
 * data_offsets: [begin, end]}}, offsets from the end of the header), then the raw little-endian data.
 * Hand-written: the format is this small, and the npm readers pull in a tensor library.
 */
import { createError } from '../errors.ts';
import { halfToFloat } from './ggml-quants.ts';

export interface SafeTensor {
  /** As the file stores it (F32, F16, BF16); the values are float32 whichever it was. */
  dtype: string;
  shape: number[];
  values: Float32Array;
}

const DTYPE_BYTES: Record<string, number> = { F32: 4, F16: 2, BF16: 2 };

/**
 * The file's tensors by name, in float32. Throws `code` (READER_ADAPTER_INVALID unless the caller
 * reads another adapter: the question model's says QUERY_ADAPTER_INVALID) with `file` on any damage.
 */
export function readSafetensors(bytes: Uint8Array, file: string, code: 'READER_ADAPTER_INVALID' | 'QUERY_ADAPTER_INVALID' = 'READER_ADAPTER_INVALID'): Map<string, SafeTensor> {
  const fail = (reason: string) => createError(code, file, reason);
  if (bytes.length < 8) throw fail(`${bytes.length} bytes: too short for a safetensors header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = Number(view.getBigUint64(0, true));
  if (headerLength > bytes.length - 8) throw fail(`its header claims ${headerLength} bytes, the file has ${bytes.length - 8} after the length`);
  let header: unknown;
  try {
    header = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(8, 8 + headerLength)));
  } catch (error) {
    throw fail(`its header is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof header !== 'object' || header === null || Array.isArray(header)) throw fail('its header is not a JSON object');
  const dataStart = 8 + headerLength;
  const tensors = new Map<string, SafeTensor>();
  for (const [name, entry] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const { dtype, shape, data_offsets: offsets } = (entry ?? {}) as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    const width = typeof dtype === 'string' ? DTYPE_BYTES[dtype] : undefined;
    if (width === undefined) throw fail(`${name}: dtype ${JSON.stringify(dtype)} (F32, F16 and BF16 are read)`);
    if (!Array.isArray(shape) || !shape.every((n) => Number.isSafeInteger(n) && n >= 0)) throw fail(`${name}: shape ${JSON.stringify(shape)} is not a list of sizes`);
    if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every((n) => Number.isSafeInteger(n) && n >= 0)) throw fail(`${name}: data_offsets ${JSON.stringify(offsets)}`);
    const count = (shape as number[]).reduce((a, b) => a * b, 1);
    const [begin, end] = offsets as [number, number];
    if (end - begin !== count * width) throw fail(`${name}: ${end - begin} bytes of data for ${count} ${dtype} values`);
    if (dataStart + end > bytes.length) throw fail(`${name}: its data runs past the end of the file (cut short?)`);
    const values = new Float32Array(count);
    const at = dataStart + begin;
    if (dtype === 'F32') for (let i = 0; i < count; i++) values[i] = view.getFloat32(at + 4 * i, true);
    else if (dtype === 'F16') for (let i = 0; i < count; i++) values[i] = halfToFloat(view.getUint16(at + 2 * i, true));
    else {
      const widen = new DataView(new ArrayBuffer(4));
      for (let i = 0; i < count; i++) {
        widen.setUint32(0, view.getUint16(at + 2 * i, true) << 16);
        values[i] = widen.getFloat32(0);
      }
    }
    tensors.set(name, { dtype: dtype as string, shape: shape as number[], values });
  }
  return tensors;
}
