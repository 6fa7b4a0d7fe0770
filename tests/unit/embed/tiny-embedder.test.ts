/**
 * The real transformers.js pipeline on the project's tiny TEST embedder (a fixture, not E5):
 * loading offline, pooling, normalisation, the embedding cache, and a build with vectors.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingCache } from '../../../builder/embed/cache.ts';
import { FIXTURE_EMBEDDER } from '../../../builder/embed/defaults.ts';
import { loadEmbedder, type Embedder } from '../../../builder/embed/embedder.ts';
import { isHarelError } from '../../../widget/core/errors.ts';
import { packVectors, quantizeInt8 } from '../../../widget/core/format/int8.ts';
import { writeTinyEmbedder } from '../../fixtures/tiny-embedder/write-tiny-embedder.ts';

let root: string;
let embedder: Embedder;

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'harel-embed-'));
  await writeTinyEmbedder(join(root, FIXTURE_EMBEDDER));
  embedder = await loadEmbedder({ model: FIXTURE_EMBEDDER, modelDir: root, dtype: 'fp32', prefix: 'passage: ' });
});

afterAll(async () => {
  await embedder?.dispose();
  await rm(root, { recursive: true, force: true });
});

describe('tiny test embedder through transformers.js', () => {
  it('embeds Hebrew and English to unit vectors of the fixture size', async () => {
    const [he, en] = await embedder.embed(['ביטוח רכב', 'car insurance']);
    expect(embedder.dimensions).toBe(32);
    expect(he.length).toBe(32);
    expect(Math.hypot(...he)).toBeCloseTo(1, 5);
    expect(Math.hypot(...en)).toBeCloseTo(1, 5);
  });

  it('is deterministic and puts texts that share words closer than unrelated ones', async () => {
    const [a, b, c, d] = await embedder.embed(['ביטוח רכב מקיף', 'ביטוח רכב מקיף', 'ביטוח רכב חובה', 'baggage lost abroad']);
    expect([...a]).toEqual([...b]);
    expect(dot(a, c)).toBeGreaterThan(dot(a, d));
  });

  it('counts tokens with the loaded tokenizer, special tokens included', () => {
    expect(embedder.countTokens('ביטוח')).toBe(3); // <s> ▁ביטוח </s>
    expect(embedder.countTokens('ביטוח רכב מקיף')).toBeGreaterThan(embedder.countTokens('ביטוח'));
  });

  it('also loads the q8 file name browsers ask for', async () => {
    const q8 = await loadEmbedder({ model: FIXTURE_EMBEDDER, modelDir: root, dtype: 'q8' });
    const [v] = await q8.embed(['ביטוח']);
    expect(v.length).toBe(32);
    await q8.dispose();
  });

  it('fails with EMBEDDER_LOAD_FAILED and says what to do when the model is not there', async () => {
    const error = await loadEmbedder({ model: 'nobody/missing-model', modelDir: root, allowRemote: false }).catch((e: unknown) => e);
    expect(isHarelError(error, 'EMBEDDER_LOAD_FAILED')).toBe(true);
    expect((error as Error).message).toMatch(/--model-dir|--allow-remote|--no-embed/);
  });

  it('stops between batches when aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(embedder.embed(['a', 'b'], { signal: controller.signal })).rejects.toThrowError(/cancelled/);
  });
});

describe('embedding cache', () => {
  it('returns what was saved in a later session, per model', async () => {
    const dir = join(root, 'cache');
    const first = await EmbeddingCache.open(dir, FIXTURE_EMBEDDER, 4);
    first.set('k1', Float32Array.from([1, 0, 0, 0]));
    await first.save();
    const second = await EmbeddingCache.open(dir, FIXTURE_EMBEDDER, 4);
    expect([...second.get('k1')!]).toEqual([1, 0, 0, 0]);
    expect(second.get('k2')).toBeUndefined();
    const other = await EmbeddingCache.open(dir, 'another/model', 4);
    expect(other.size).toBe(0);
  });
});

describe('int8 quantisation', () => {
  it('keeps cosine above 0.99 for random unit vectors of 384 dimensions', () => {
    let seed = 7;
    const rand = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    for (let n = 0; n < 20; n++) {
      const v = Float32Array.from({ length: 384 }, rand);
      const norm = Math.hypot(...v);
      v.forEach((x, i) => (v[i] = x / norm));
      const { q, scale } = quantizeInt8(v);
      const back = Float32Array.from(q, (x) => x * scale);
      expect(dot(v, back) / Math.hypot(...back)).toBeGreaterThan(0.99);
    }
  });

  it('packs vectors back to back with one scale each', () => {
    const packed = packVectors([Float32Array.from([0.5, -1]), Float32Array.from([0.25, 0.25])]);
    expect([...packed.data]).toEqual([64, -127, 127, 127]);
    expect(packed.scales[0]).toBeCloseTo(1 / 127, 8);
  });
});
