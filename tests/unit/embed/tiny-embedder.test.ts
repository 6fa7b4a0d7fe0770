/**
 * The tiny TEST embedder (a fixture, not E5): the generator's files, and the real
 * @huggingface/transformers feature-extraction pipeline loading them offline under both the
 * fp32 and the q8 file names.
 */
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline, type FeatureExtractionPipeline } from '@huggingface/transformers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_EMBEDDER } from '../../../builder/embed/defaults.ts';
import { configureTransformers } from '../../../builder/embed/transformers-env.ts';
import { writeTinyEmbedder } from '../../fixtures/tiny-embedder/write-tiny-embedder.ts';

let root: string;
let modelDir: string;
const FILES = ['config.json', 'tokenizer_config.json', 'tokenizer.json', 'onnx/model.onnx', 'onnx/model_quantized.onnx', 'fixture.json'];

const dot = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((s, x, i) => s + x * b[i], 0);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'harel-tiny-'));
  modelDir = join(root, FIXTURE_EMBEDDER);
  await writeTinyEmbedder(modelDir);
  configureTransformers({ modelDir: root, allowRemote: false });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('writeTinyEmbedder', () => {
  it('writes the files transformers.js reads, labelled as a test fixture', async () => {
    for (const f of FILES) expect((await stat(join(modelDir, f))).size).toBeGreaterThan(0);
    const config = JSON.parse(await readFile(join(modelDir, 'config.json'), 'utf8'));
    expect(config).toMatchObject({ model_type: 'xlm-roberta', hidden_size: 32, harel_test_fixture: true });
    const tokenizer = JSON.parse(await readFile(join(modelDir, 'tokenizer.json'), 'utf8'));
    expect(tokenizer.model.type).toBe('Unigram');
    expect(tokenizer.model.vocab.slice(0, 4).map((p: [string, number]) => p[0])).toEqual(['<s>', '<pad>', '</s>', '<unk>']);
    expect(tokenizer.model.vocab.length).toBeGreaterThan(2000);
    expect(config.vocab_size).toBe(tokenizer.model.vocab.length);
    const fp32 = await readFile(join(modelDir, 'onnx/model.onnx'));
    expect(fp32.equals(await readFile(join(modelDir, 'onnx/model_quantized.onnx')))).toBe(true);
    // The embedding table dominates the file: pieces × 32 floats.
    expect(fp32.byteLength).toBeGreaterThan(tokenizer.model.vocab.length * 32 * 4);
  });

  it('is idempotent, repairs a damaged file, and rewrites for another dimension', async () => {
    const dir = join(root, 'again');
    await writeTinyEmbedder(dir);
    const before = await stat(join(dir, 'onnx/model.onnx'));
    await writeTinyEmbedder(dir);
    expect((await stat(join(dir, 'onnx/model.onnx'))).mtimeMs).toBe(before.mtimeMs);

    await writeFile(join(dir, 'tokenizer.json'), '{"truncated":');
    await writeTinyEmbedder(dir);
    expect(JSON.parse(await readFile(join(dir, 'tokenizer.json'), 'utf8')).model.type).toBe('Unigram');

    await writeTinyEmbedder(dir, { dimensions: 8 });
    expect(JSON.parse(await readFile(join(dir, 'config.json'), 'utf8')).hidden_size).toBe(8);
    expect(JSON.parse(await readFile(join(dir, 'fixture.json'), 'utf8')).dimensions).toBe(8);
  });

  it('produces the same bytes on every run', async () => {
    const other = join(root, 'twin');
    await writeTinyEmbedder(other);
    for (const f of FILES) expect((await readFile(join(other, f))).equals(await readFile(join(modelDir, f)))).toBe(true);
  });
});

describe.each(['fp32', 'q8'] as const)('the real feature-extraction pipeline, dtype %s', (dtype) => {
  let extractor: FeatureExtractionPipeline;
  const embed = async (texts: string[]) => {
    const out = await extractor(
      texts.map((t) => `passage: ${t}`),
      { pooling: 'mean', normalize: true },
    );
    return { dims: out.dims, rows: out.tolist() as number[][] };
  };

  beforeAll(async () => {
    extractor = await pipeline('feature-extraction', FIXTURE_EMBEDDER, { dtype });
  });
  afterAll(async () => {
    await extractor?.dispose();
  });

  it('returns one unit vector per text', async () => {
    const { dims, rows } = await embed(['ביטוח רכב', 'car insurance']);
    expect(dims).toEqual([2, 32]);
    for (const r of rows) expect(Math.hypot(...r)).toBeCloseTo(1, 5);
  });

  it('is deterministic, also across batch composition and padding', async () => {
    const alone = (await embed(['ביטוח רכב'])).rows[0];
    const { rows } = await embed(['ביטוח רכב', 'ביטוח רכב', 'a much longer text about lost baggage on a flight abroad']);
    expect(rows[0]).toEqual(rows[1]);
    for (let i = 0; i < 32; i++) expect(rows[0][i]).toBeCloseTo(alone[i], 6);
  });

  it('puts texts that share words (or translations) closer than unrelated ones', async () => {
    const { rows } = await embed(['ביטוח רכב מקיף', 'ביטוח רכב חובה', 'כבודה שאבדה בטיסה', 'car insurance', 'lost baggage on a flight']);
    const [comprehensive, compulsory, baggage, carEn, baggageEn] = rows;
    expect(dot(comprehensive, compulsory)).toBeGreaterThan(dot(comprehensive, baggage) + 0.3);
    expect(dot(comprehensive, carEn)).toBeGreaterThan(dot(comprehensive, baggageEn));
    expect(dot(baggage, baggageEn)).toBeGreaterThan(dot(baggage, carEn));
  });

  it('splits Hebrew clitics and unknown words into pieces', () => {
    expect(extractor.tokenizer.tokenize('בביטוח הרכב')).toEqual(['▁ב', 'ביטוח', '▁ה', 'רכב']);
    expect(extractor.tokenizer.tokenize('Claims')).toEqual(['▁claims']);
    const unknown = extractor.tokenizer.tokenize('זיהום');
    expect(unknown.length).toBeGreaterThan(1);
    expect(unknown.join('')).toBe('▁זיהום');
  });
});
