/**
 * loadEmbedder on the tiny TEST embedder (a fixture, not E5): the prefix, batching, progress,
 * cancellation, token counting and the load failures a user can meet.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_EMBEDDER } from '../../../builder/embed/defaults.ts';
import { loadEmbedder, type Embedder } from '../../../builder/embed/embedder.ts';
import { isHarelError } from '../../../builder/errors.ts';
import type { Progress } from '../../../widget/core/schema.ts';
import { writeTinyEmbedder } from '../../fixtures/tiny-embedder/write-tiny-embedder.ts';

let root: string;
let embedder: Embedder;

const dot = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i], 0);

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'harel-embedder-'));
  await writeTinyEmbedder(join(root, FIXTURE_EMBEDDER));
  embedder = await loadEmbedder({ model: FIXTURE_EMBEDDER, modelDir: root, dtype: 'fp32', prefix: 'passage: ', batchSize: 2 });
});

afterAll(async () => {
  await embedder?.dispose();
  await rm(root, { recursive: true, force: true });
});

describe('loadEmbedder', () => {
  it('embeds Hebrew and English to unit vectors of the fixture size, in order', async () => {
    const texts = ['ביטוח רכב', 'car insurance', 'ביטוח דירה', 'travel insurance', 'תביעה'];
    const vectors = await embedder.embed(texts);
    expect(embedder.dimensions).toBe(32);
    expect(vectors).toHaveLength(5);
    for (const v of vectors) {
      expect(v).toBeInstanceOf(Float32Array);
      expect(v.length).toBe(32);
      expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    }
    // Batches of 2 must not reorder or mix texts: each equals the text embedded alone.
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await embedder.embed([texts[i]]);
      expect(dot(alone, vectors[i])).toBeCloseTo(1, 5);
    }
  });

  it('applies the prefix: the same text with another prefix embeds differently', async () => {
    const query = await loadEmbedder({ model: FIXTURE_EMBEDDER, modelDir: root, dtype: 'fp32', prefix: 'query: zz ' });
    const [p] = await embedder.embed(['ביטוח רכב']);
    const [q] = await query.embed(['ביטוח רכב']);
    expect(dot(p, q)).toBeLessThan(0.9999);
    await query.dispose();
  });

  it('reports progress per batch, ending at the total', async () => {
    const seen: Progress[] = [];
    await embedder.embed(['a', 'b', 'c', 'd', 'e'], { onProgress: (p) => seen.push(p) });
    expect(seen.map((p) => p.done)).toEqual([0, 2, 4, 5]);
    expect(seen.every((p) => p.step === 'embed' && p.total === 5)).toBe(true);
  });

  it('stops between batches when aborted mid-way', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const run = embedder.embed(['a', 'b', 'c', 'd', 'e', 'f'], {
      signal: controller.signal,
      onProgress: (p) => {
        seen.push(p.done);
        if (p.done === 2) controller.abort();
      },
    });
    const error = await run.catch((e: unknown) => e);
    expect(isHarelError(error, 'ABORTED')).toBe(true);
    expect(seen).toEqual([0, 2]);
  });

  it('counts tokens with the loaded tokenizer, special tokens included, prefix excluded', () => {
    expect(embedder.countTokens('ביטוח')).toBe(3); // <s> ▁ביטוח </s>
    expect(embedder.countTokens('בביטוח הרכב')).toBe(6); // <s> ▁ב ביטוח ▁ה רכב </s>
  });

  it('has a fingerprint that follows the weights, dtype and prefix, not the load', async () => {
    const again = await loadEmbedder({ model: FIXTURE_EMBEDDER, modelDir: root, dtype: 'fp32', prefix: 'passage: ' });
    expect(again.fingerprint).toBe(embedder.fingerprint);
    await again.dispose();
    const query = await loadEmbedder({ model: FIXTURE_EMBEDDER, modelDir: root, dtype: 'fp32', prefix: 'query: ' });
    expect(query.fingerprint).not.toBe(embedder.fingerprint);
    await query.dispose();
    const q8 = await loadEmbedder({ model: FIXTURE_EMBEDDER, modelDir: root, dtype: 'q8', prefix: 'passage: ' });
    expect(q8.dtype).toBe('q8');
    expect(q8.fingerprint).not.toBe(embedder.fingerprint);
    await q8.dispose();
    const other = join(root, 'other');
    await writeTinyEmbedder(join(other, FIXTURE_EMBEDDER), { dimensions: 16 });
    const small = await loadEmbedder({ model: FIXTURE_EMBEDDER, modelDir: other, dtype: 'fp32', prefix: 'passage: ' });
    expect(small.dimensions).toBe(16);
    expect(small.fingerprint).not.toBe(embedder.fingerprint);
    await small.dispose();
  });

  it('fails with EMBEDDER_LOAD_FAILED naming the missing file when downloading is off', async () => {
    const error = await loadEmbedder({ model: 'nobody/missing-model', modelDir: root, allowRemote: false }).catch((e: unknown) => e);
    expect(isHarelError(error, 'EMBEDDER_LOAD_FAILED')).toBe(true);
    const message = (error as Error).message;
    expect(message).toContain('nobody/missing-model/config.json');
    expect(message).toMatch(/downloading is off/);
    expect(message).toMatch(/--model-dir/);
    expect(message).not.toMatch(/local_files_only/);
  });

  it('says when no --model-dir was given', async () => {
    const error = await loadEmbedder({ model: 'nobody/missing-model' }).catch((e: unknown) => e);
    expect(isHarelError(error, 'EMBEDDER_LOAD_FAILED')).toBe(true);
    expect((error as Error).message).toMatch(/no --model-dir given/);
  });

  it('does not start loading when already cancelled', async () => {
    const controller = new AbortController();
    controller.abort();
    const error = await loadEmbedder({ model: FIXTURE_EMBEDDER, modelDir: root, signal: controller.signal }).catch((e: unknown) => e);
    expect(isHarelError(error, 'ABORTED')).toBe(true);
  });
});
