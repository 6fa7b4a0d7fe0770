import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { writeGemmaReader, READER_PATH, verifyWrittenFile } from '../../../builder/models/gemma-reader.ts';
import { GEMMA_PATH } from '../../../builder/models/gemma-pypi.ts';
import { dequantize, floatToHalf, GGML_TYPE } from '../../../builder/models/ggml-quants.ts';
import { isHarelError } from '../../../widget/core/errors.ts';
import { readGgufMetadata, readGgufTensors } from '../../../widget/core/format/gguf-file.ts';

// A tiny Gemma-shaped GGUF (Q8_0, Q4_K and F32 tensors) and a tiny peft adapter on two of its
// projections, written here byte by byte.

const INPUTS_Q = 64;
const OUTPUTS_Q = 4;
const INPUTS_DOWN = 256;
const OUTPUTS_DOWN = 2;
const RANK = 2;
const ALPHA = 4;

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function ggufBytes(tensors: { name: string; dims: number[]; type: number; data: Uint8Array }[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const num = (n: number, bytes: 4 | 8) => {
    const b = new Uint8Array(bytes);
    const v = new DataView(b.buffer);
    if (bytes === 4) v.setUint32(0, n, true);
    else v.setBigUint64(0, BigInt(n), true);
    parts.push(b);
  };
  const str = (s: string) => {
    const b = new TextEncoder().encode(s);
    num(b.length, 8);
    parts.push(b);
  };
  parts.push(new TextEncoder().encode('GGUF'));
  num(3, 4);
  num(tensors.length, 8);
  num(3, 8);
  str('general.architecture');
  num(8, 4);
  str('gemma3');
  str('general.name');
  num(8, 4);
  str('tiny');
  str('gemma3.block_count');
  num(4, 4);
  num(1, 4);
  let offset = 0;
  for (const t of tensors) {
    str(t.name);
    num(t.dims.length, 4);
    for (const d of t.dims) num(d, 8);
    num(t.type, 4);
    num(offset, 8);
    offset += Math.ceil(t.data.length / 32) * 32;
  }
  const head = concat(parts);
  const data = new Uint8Array(offset);
  offset = 0;
  for (const t of tensors) {
    data.set(t.data, offset);
    offset += Math.ceil(t.data.length / 32) * 32;
  }
  return concat([head, new Uint8Array(Math.ceil(head.length / 32) * 32 - head.length), data]);
}

function q8Data(values: number[]): Uint8Array {
  // Blocks with d = 1/64 and q = the values × 64 (all exact).
  const out = new Uint8Array((values.length / 32) * 34);
  const v = new DataView(out.buffer);
  for (let b = 0; b < values.length / 32; b++) {
    v.setUint16(34 * b, floatToHalf(1 / 64), true);
    for (let j = 0; j < 32; j++) v.setInt8(34 * b + 2 + j, Math.round(values[32 * b + j] * 64));
  }
  return out;
}

function q4kData(blocks: number): Uint8Array {
  const out = new Uint8Array(144 * blocks);
  const v = new DataView(out.buffer);
  for (let b = 0; b < blocks; b++) {
    v.setUint16(144 * b, floatToHalf(0.01), true);
    v.setUint16(144 * b + 2, floatToHalf(0.02), true);
    for (let i = 0; i < 12; i++) out[144 * b + 4 + i] = (i * 37 + b) & 0xff;
    for (let i = 0; i < 128; i++) out[144 * b + 16 + i] = (i * 91 + 7 * b) & 0xff;
  }
  return out;
}

function f32Data(values: number[]): Uint8Array {
  return new Uint8Array(Float32Array.from(values).buffer);
}

const baseQ = Array.from({ length: INPUTS_Q * OUTPUTS_Q }, (_, i) => (((i * 13) % 127) - 63) / 64);
const BASE_TENSORS = [
  { name: 'token_embd.weight', dims: [INPUTS_Q, 3], type: GGML_TYPE.F32, data: f32Data(Array.from({ length: INPUTS_Q * 3 }, (_, i) => i / 7)) },
  { name: 'blk.0.attn_q.weight', dims: [INPUTS_Q, OUTPUTS_Q], type: GGML_TYPE.Q8_0, data: q8Data(baseQ) },
  { name: 'blk.0.attn_norm.weight', dims: [INPUTS_Q], type: GGML_TYPE.F32, data: f32Data(Array.from({ length: INPUTS_Q }, (_, i) => 1 + i / 100)) },
  { name: 'blk.0.ffn_down.weight', dims: [INPUTS_DOWN, OUTPUTS_DOWN], type: GGML_TYPE.Q4_K, data: q4kData(OUTPUTS_DOWN) },
];

/** LoRA weights, multiples of 1/64 (exact in F16). */
const loraA = (inputs: number, salt: number) => Array.from({ length: RANK * inputs }, (_, i) => (((i * 7 + salt) % 17) - 8) / 64);
const loraB = (outputs: number, salt: number) => Array.from({ length: outputs * RANK }, (_, i) => (((i * 5 + salt) % 11) - 5) / 64);

type Entry = { shape: number[]; values: number[] };

function safetensorsBytes(entries: Record<string, Entry>): Uint8Array {
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } };
  const data: Uint8Array[] = [];
  let at = 0;
  for (const [name, { shape, values }] of Object.entries(entries)) {
    const bytes = new Uint8Array(values.length * 2);
    const v = new DataView(bytes.buffer);
    values.forEach((x, i) => v.setUint16(2 * i, floatToHalf(x), true));
    header[name] = { dtype: 'F16', shape, data_offsets: [at, at + bytes.length] };
    data.push(bytes);
    at += bytes.length;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, BigInt(json.length), true);
  return concat([length, json, ...data]);
}

const KEY = (layer: number, part: string, half: 'A' | 'B') => `base_model.model.model.layers.${layer}.${part}.lora_${half}.weight`;

function adapterEntries(): Record<string, Entry> {
  return {
    [KEY(0, 'self_attn.q_proj', 'A')]: { shape: [RANK, INPUTS_Q], values: loraA(INPUTS_Q, 1) },
    [KEY(0, 'self_attn.q_proj', 'B')]: { shape: [OUTPUTS_Q, RANK], values: loraB(OUTPUTS_Q, 2) },
    [KEY(0, 'mlp.down_proj', 'A')]: { shape: [RANK, INPUTS_DOWN], values: loraA(INPUTS_DOWN, 3) },
    [KEY(0, 'mlp.down_proj', 'B')]: { shape: [OUTPUTS_DOWN, RANK], values: loraB(OUTPUTS_DOWN, 4) },
  };
}

const CONFIG = { peft_type: 'LORA', r: RANK, lora_alpha: ALPHA, target_modules: ['down_proj', 'q_proj'], layers_to_transform: [0], use_rslora: false, use_dora: false };

const scratch: string[] = [];
afterAll(async () => {
  for (const dir of scratch) await rm(dir, { recursive: true, force: true });
});

/** A models folder holding the tiny base, and an adapter folder; returns both and the base's sha256. */
async function setup(options: { entries?: Record<string, Entry>; weights?: Uint8Array; config?: object } = {}) {
  const dir = await mkdtemp(join(tmpdir(), 'reader-merge-'));
  scratch.push(dir);
  const root = join(dir, 'models');
  const adapter = join(dir, 'adapter');
  await mkdir(join(root, 'gguf'), { recursive: true });
  await mkdir(adapter);
  const base = ggufBytes(BASE_TENSORS);
  await writeFile(join(root, GEMMA_PATH), base);
  await writeFile(join(adapter, 'adapter_config.json'), JSON.stringify(options.config ?? CONFIG));
  await writeFile(join(adapter, 'adapter_model.safetensors'), options.weights ?? safetensorsBytes(options.entries ?? adapterEntries()));
  return { root, adapter, base, baseSha256: createHash('sha256').update(base).digest('hex') };
}

async function codeOf(work: Promise<unknown>): Promise<string> {
  try {
    await work;
  } catch (error) {
    return isHarelError(error) ? error.code : `not a HarelError: ${String(error)}`;
  }
  return 'no error';
}

function tensorsOf(bytes: Uint8Array) {
  const meta = readGgufMetadata(bytes);
  const layout = readGgufTensors(bytes, meta);
  const data = (name: string) => {
    const t = layout.tensors.find((x) => x.name === name)!;
    return { ...t, bytes: bytes.subarray(layout.dataStart + t.offset) };
  };
  return { meta, layout, data };
}

describe('models fetch merges the reader adapter into the GGUF', () => {
  it('gives the same bytes on every run; the adapted tensors are base + (alpha/r)·B·A within Q8_0 error; the others are copied', async () => {
    const one = await setup();
    const two = await setup();
    const first = await writeGemmaReader(one.root, { adapter: one.adapter, baseSha256: one.baseSha256 });
    const second = await writeGemmaReader(two.root, { adapter: two.adapter, baseSha256: two.baseSha256 });
    const bytes = new Uint8Array(await readFile(first.path));
    expect(first.merged).toBe(2);
    expect(first.sha256).toBe(second.sha256);
    expect(Buffer.compare(bytes, await readFile(second.path))).toBe(0);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(first.sha256);
    expect((await readFile(`${first.path}.sha256`, 'utf8')).trim()).toBe(first.sha256);

    const merged = tensorsOf(bytes);
    const base = tensorsOf(one.base);
    expect(merged.meta.values.get('general.name')).toBe('Gemma 3 270M Harel reader');
    expect(merged.meta.values.get('harel.reader.base_sha256')).toBe(one.baseSha256);
    expect(merged.meta.values.get('harel.reader.adapter_sha256')).toBe(first.adapterSha256);
    expect(merged.meta.values.get('gemma3.block_count')).toBe(1);
    for (const name of ['token_embd.weight', 'blk.0.attn_norm.weight']) {
      const a = base.data(name);
      const b = merged.data(name);
      expect(b.type).toBe(a.type);
      const length = BASE_TENSORS.find((t) => t.name === name)!.data.length;
      expect(Buffer.compare(b.bytes.subarray(0, length), a.bytes.subarray(0, length))).toBe(0);
    }
    const entries = adapterEntries();
    for (const [name, inputs, outputs, part] of [
      ['blk.0.attn_q.weight', INPUTS_Q, OUTPUTS_Q, 'self_attn.q_proj'],
      ['blk.0.ffn_down.weight', INPUTS_DOWN, OUTPUTS_DOWN, 'mlp.down_proj'],
    ] as const) {
      const before = base.data(name);
      const after = merged.data(name);
      expect(after.type).toBe(GGML_TYPE.Q8_0);
      const w = dequantize(before.type, before.bytes, inputs * outputs);
      const got = dequantize(GGML_TYPE.Q8_0, after.bytes, inputs * outputs);
      const a = entries[KEY(0, part, 'A')].values;
      const b = entries[KEY(0, part, 'B')].values;
      const want = Array.from({ length: inputs * outputs }, (_, e) => {
        const o = Math.floor(e / inputs);
        const i = e % inputs;
        let sum = 0;
        for (let k = 0; k < RANK; k++) sum += b[o * RANK + k] * a[k * inputs + i];
        return w[e] + (ALPHA / RANK) * sum;
      });
      let moved = 0;
      for (let block = 0; block < want.length / 32; block++) {
        const values = want.slice(32 * block, 32 * block + 32);
        const step = Math.max(...values.map(Math.abs)) / 127;
        for (let j = 0; j < 32; j++) {
          const e = 32 * block + j;
          expect(Math.abs(got[e] - want[e])).toBeLessThanOrEqual(0.6 * step);
          moved = Math.max(moved, Math.abs(got[e] - w[e]));
        }
      }
      expect(moved).toBeGreaterThan(0.01);
    }
  });

  it('keeps a reader already merged from the same inputs, and merges again when the adapter changes', async () => {
    const { root, adapter, baseSha256 } = await setup();
    const first = await writeGemmaReader(root, { adapter, baseSha256 });
    const again = await writeGemmaReader(root, { adapter, baseSha256 });
    expect(again.reused).toBe(true);
    expect(again.sha256).toBe(first.sha256);
    const entries = adapterEntries();
    entries[KEY(0, 'mlp.down_proj', 'B')].values = entries[KEY(0, 'mlp.down_proj', 'B')].values.map((x) => -x);
    await writeFile(join(adapter, 'adapter_model.safetensors'), safetensorsBytes(entries));
    const changed = await writeGemmaReader(root, { adapter, baseSha256 });
    expect(changed.reused).toBe(false);
    expect(changed.sha256).not.toBe(first.sha256);
  });

  it('refuses bad input with its code, and leaves the base as it was and no merged or temporary file', async () => {
    const cases: [string, Parameters<typeof setup>[0], string][] = [
      ['bad safetensors header', { weights: new Uint8Array([200, 0, 0, 0, 0, 0, 0, 0, 123, 34]) }, 'READER_ADAPTER_INVALID'],
      ['header not JSON', { weights: concat([new Uint8Array([4, 0, 0, 0, 0, 0, 0, 0]), new TextEncoder().encode('{"a"')]) }, 'READER_ADAPTER_INVALID'],
      ['data cut short', { weights: safetensorsBytes(adapterEntries()).subarray(0, 400) }, 'READER_ADAPTER_INVALID'],
      [
        'lora_A without its lora_B',
        {
          entries: Object.fromEntries(Object.entries(adapterEntries()).filter(([k]) => k !== KEY(0, 'mlp.down_proj', 'B'))),
        },
        'READER_ADAPTER_INVALID',
      ],
      [
        'shape not the tensor’s',
        {
          entries: {
            ...adapterEntries(),
            [KEY(0, 'self_attn.q_proj', 'B')]: { shape: [OUTPUTS_Q + 1, RANK], values: loraB(OUTPUTS_Q + 1, 2) },
          },
        },
        'READER_ADAPTER_INVALID',
      ],
      ['rank not the config’s', { config: { ...CONFIG, r: 3 } }, 'READER_ADAPTER_INVALID'],
      ['a configured module missing', { config: { ...CONFIG, target_modules: ['down_proj', 'q_proj', 'k_proj'] } }, 'READER_ADAPTER_INVALID'],
    ];
    for (const [what, options, code] of cases) {
      const { root, adapter, base, baseSha256 } = await setup(options);
      expect(await codeOf(writeGemmaReader(root, { adapter, baseSha256 })), what).toBe(code);
      expect(Buffer.compare(await readFile(join(root, GEMMA_PATH)), base), what).toBe(0);
      expect(await readdir(join(root, 'gguf')), what).toEqual(['gemma-3-270m-q4_k_m.gguf']);
    }
  });

  it('refuses a missing adapter and a base whose sha256 is not the pinned one', async () => {
    const { root, adapter, baseSha256 } = await setup();
    expect(await codeOf(writeGemmaReader(root, { adapter: join(adapter, 'nowhere'), baseSha256 }))).toBe('READER_ADAPTER_MISSING');
    expect(await codeOf(writeGemmaReader(root, { adapter, baseSha256: '0'.repeat(64) }))).toBe('READER_BASE_MISMATCH');
    // The real pinned sha256, against the tiny base.
    expect(await codeOf(writeGemmaReader(root, { adapter }))).toBe('READER_BASE_MISMATCH');
    expect(await readdir(join(root, 'gguf'))).toEqual(['gemma-3-270m-q4_k_m.gguf']);
  });

  it('stops on its signal with ABORTED and leaves no file behind', async () => {
    const { root, adapter, baseSha256 } = await setup();
    const controller = new AbortController();
    const work = writeGemmaReader(root, {
      adapter,
      baseSha256,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.step === 'merge') controller.abort();
      },
    });
    expect(await codeOf(work)).toBe('ABORTED');
    expect(await readdir(join(root, 'gguf'))).toEqual(['gemma-3-270m-q4_k_m.gguf']);
  });

  it('refuses a written file that is cut short or changed', async () => {
    const { root, adapter, baseSha256 } = await setup();
    const written = await writeGemmaReader(root, { adapter, baseSha256 });
    await verifyWrittenFile(written.path, written.bytes, written.sha256);
    expect(await codeOf(verifyWrittenFile(written.path, written.bytes, 'f'.repeat(64)))).toBe('READER_MERGE_INCOMPLETE');
    await truncate(written.path, written.bytes - 1);
    await expect(verifyWrittenFile(written.path, written.bytes, written.sha256)).rejects.toThrow(/cut short/);
    expect(await codeOf(verifyWrittenFile(written.path, written.bytes, written.sha256))).toBe('READER_MERGE_INCOMPLETE');
    // And the next fetch sees it: the damaged reader is merged again.
    const again = await writeGemmaReader(root, { adapter, baseSha256 });
    expect(again.reused).toBe(false);
    expect(again.sha256).toBe(written.sha256);
  });
});

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REAL_BASE = join(ROOT, 'models', GEMMA_PATH);

describe('the real reader', () => {
  it.skipIf(!existsSync(REAL_BASE))(
    'merges the committed adapter into the PyPI Gemma to the same sha256 twice (needs models/ from `models fetch`: skipped without it)',
    { timeout: 120_000 },
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'reader-real-'));
      scratch.push(dir);
      const sums: string[] = [];
      for (const run of ['a', 'b']) {
        await mkdir(join(dir, run, 'gguf'), { recursive: true });
        await symlink(REAL_BASE, join(dir, run, GEMMA_PATH));
        const result = await writeGemmaReader(join(dir, run));
        expect(result.path).toBe(join(dir, run, READER_PATH));
        sums.push(result.sha256);
        await rm(join(dir, run), { recursive: true });
      }
      expect(sums[0]).toBe(sums[1]);
    },
  );
});
