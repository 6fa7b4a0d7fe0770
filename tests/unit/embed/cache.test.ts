/**
 * The embedding cache on its own, and embedWithCache with the tiny TEST embedder (a fixture,
 * not E5): a second run embeds only what changed, a changed model or damaged files never serve
 * stale vectors, and a cancelled run keeps what it had embedded.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddingCache } from '../../../builder/embed/cache.ts';
import { FIXTURE_EMBEDDER } from '../../../builder/embed/defaults.ts';
import { embedWithCache } from '../../../builder/embed/embed-cached.ts';
import { loadEmbedder, type Embedder } from '../../../builder/embed/embedder.ts';
import { isHarelError } from '../../../widget/core/errors.ts';
import { writeTinyEmbedder } from '../../fixtures/tiny-embedder/write-tiny-embedder.ts';

let root: string;
let embedder: Embedder;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'harel-cache-'));
  await writeTinyEmbedder(join(root, 'models', FIXTURE_EMBEDDER));
  embedder = await loadEmbedder({ model: FIXTURE_EMBEDDER, modelDir: join(root, 'models'), dtype: 'fp32', prefix: 'passage: ', batchSize: 2 });
});

afterAll(async () => {
  await embedder?.dispose();
  await rm(root, { recursive: true, force: true });
});

describe('EmbeddingCache', () => {
  it('returns what was saved in a later session, per model', async () => {
    const dir = join(root, 'plain');
    const first = await EmbeddingCache.open(dir, FIXTURE_EMBEDDER, 4);
    first.set('k1', Float32Array.from([1, 0, 0, 0]));
    await first.save();
    const second = await EmbeddingCache.open(dir, FIXTURE_EMBEDDER, 4);
    expect(second.getMany(['k1', 'k2']).map((v) => (v ? [...v] : v))).toEqual([[1, 0, 0, 0], undefined]);
    expect((await EmbeddingCache.open(dir, 'another/model', 4)).size).toBe(0);
  });

  it('drops vectors of another dimension or fingerprint, and says why', async () => {
    const dir = join(root, 'fingerprint');
    const first = await EmbeddingCache.open(dir, 'm', 2, { fingerprint: 'aaa' });
    first.set('k', Float32Array.from([0.6, 0.8]));
    await first.save();
    expect((await EmbeddingCache.open(dir, 'm', 2, { fingerprint: 'aaa' })).size).toBe(1);
    const changed = await EmbeddingCache.open(dir, 'm', 2, { fingerprint: 'bbb' });
    expect(changed.size).toBe(0);
    expect(changed.discarded).toMatch(/model changed/);
    const resized = await EmbeddingCache.open(dir, 'm', 3, { fingerprint: 'aaa' });
    expect(resized.size).toBe(0);
    expect(resized.discarded).toMatch(/2-dimensional/);
  });

  it('starts empty when vectors.f32 does not match index.json', async () => {
    const dir = join(root, 'damaged');
    const cache = await EmbeddingCache.open(dir, 'm', 2);
    cache.set('a', Float32Array.from([1, 0]));
    cache.set('b', Float32Array.from([0, 1]));
    await cache.save();
    const folder = EmbeddingCache.folderFor(dir, 'm');
    const bytes = await readFile(join(folder, 'vectors.f32'));
    // Same length, different content: what a build killed between the two renames leaves.
    await writeFile(join(folder, 'vectors.f32'), Buffer.concat([bytes.subarray(8), bytes.subarray(0, 8)]));
    const reopened = await EmbeddingCache.open(dir, 'm', 2);
    expect(reopened.size).toBe(0);
    expect(reopened.discarded).toMatch(/does not match/);
  });

  it('refuses vectors of the wrong size or with NaN', async () => {
    const cache = await EmbeddingCache.open(join(root, 'strict'), 'm', 2);
    expect(() => cache.set('a', Float32Array.from([1, 0, 0]))).toThrow(/3 dimensions/);
    expect(() => cache.set('a', Float32Array.from([NaN, 0]))).toThrow(/NaN/);
  });
});

describe('embedWithCache', () => {
  const items = (texts: string[]) => texts.map((text) => ({ key: `k:${text}`, text }));

  it('embeds everything once, then only what changed', async () => {
    const cacheDir = join(root, 'incremental');
    const first = await embedWithCache(embedder, items(['ביטוח רכב', 'ביטוח דירה', 'lost baggage']), { cacheDir });
    expect([first.embedded, first.hits]).toEqual([3, 0]);
    const second = await embedWithCache(embedder, items(['ביטוח רכב', 'ביטוח דירה', 'travel insurance']), { cacheDir });
    expect([second.embedded, second.hits]).toEqual([1, 2]);
    expect(second.discarded).toBeNull();
    expect([...second.vectors[0]]).toEqual([...first.vectors[0]]);
    const [fresh] = await embedder.embed(['travel insurance']);
    expect([...second.vectors[2]]).toEqual([...fresh]);
  });

  it('embeds a text that repeats in one call once, and gives every repeat its vector', async () => {
    const cacheDir = join(root, 'repeats');
    const asked: string[] = [];
    const counting: Embedder = {
      ...embedder,
      embed: (texts, work) => {
        asked.push(...texts);
        return embedder.embed(texts, work);
      },
    };
    const result = await embedWithCache(counting, items(['ביטוח רכב', 'lost baggage', 'ביטוח רכב', 'ביטוח רכב']), { cacheDir });
    expect(asked).toEqual(['ביטוח רכב', 'lost baggage']);
    expect([result.embedded, result.hits]).toEqual([2, 2]);
    expect([...result.vectors[2]]).toEqual([...result.vectors[0]]);
    expect([...result.vectors[3]]).toEqual([...result.vectors[0]]);
  });

  it('re-embeds everything when the model behind the id changed', async () => {
    const cacheDir = join(root, 'model-changed');
    await embedWithCache(embedder, items(['ביטוח רכב']), { cacheDir });
    const q8 = await loadEmbedder({ model: FIXTURE_EMBEDDER, modelDir: join(root, 'models'), dtype: 'q8', prefix: 'passage: ' });
    const again = await embedWithCache(q8, items(['ביטוח רכב']), { cacheDir });
    await q8.dispose();
    expect([again.embedded, again.hits]).toEqual([1, 0]);
    expect(again.discarded).toMatch(/model changed/);
  });

  it('keeps the groups embedded before a cancellation', async () => {
    const cacheDir = join(root, 'cancelled');
    const texts = ['a1', 'a2', 'a3', 'a4', 'a5', 'a6'];
    const controller = new AbortController();
    const error = await embedWithCache(embedder, items(texts), {
      cacheDir,
      saveEvery: 2,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.done === 4) controller.abort();
      },
    }).catch((e: unknown) => e);
    expect(isHarelError(error, 'ABORTED')).toBe(true);
    const resumed = await embedWithCache(embedder, items(texts), { cacheDir, saveEvery: 2 });
    expect([resumed.embedded, resumed.hits]).toEqual([2, 4]);
  });
});
