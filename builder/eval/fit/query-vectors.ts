/**
 * The questions' E5 vectors for the fitting scripts, embedded as `eval` and the widget embed a
 * question (one at a time) and kept in a JSON cache keyed by the embedder's id and fingerprint,
 * so a refit does not embed again.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import { loadQueryEmbedder } from '../../commands/query-embedder.ts';
import type { Embedder } from '../../embed/embedder.ts';

/** Each text's vector (one at a time, as `eval` and the widget embed a query), through the cache. */
export async function queryVectors(index: LoadedIndex, texts: readonly string[], modelDir: string, cacheFile: string): Promise<Map<string, Float32Array>> {
  const cached = await cachedQueryEmbedder(index, modelDir, cacheFile);
  try {
    const queryPrefix = index.manifest.embedder?.queryPrefix ?? '';
    const unique = [...new Set(texts)];
    const vectors = new Map<string, Float32Array>();
    for (const [i, text] of unique.entries()) {
      vectors.set(text, await cached.embedQuery(queryPrefix + text));
      if (i % 64 === 63 || i === unique.length - 1) process.stderr.write(`\rquestions' vectors ${i + 1}/${unique.length}${i === unique.length - 1 ? '\n' : ''}`);
    }
    await cached.save();
    return vectors;
  } finally {
    await cached.dispose();
  }
}

/**
 * A query embedder for LocalSearchService (hybrid search, as the widget runs it) over the same
 * cache: a question already embedded is read back, any other text (a follow-up the loop rewrote)
 * is embedded one at a time and added. `save()` writes the cache back when anything was added.
 */
export async function cachedQueryEmbedder(
  index: LoadedIndex,
  modelDir: string,
  cacheFile: string,
): Promise<{ embedQuery: (prefixed: string) => Promise<Float32Array>; save: () => Promise<void>; dispose: () => Promise<void> }> {
  const embedder = await loadQueryEmbedder(index, { mode: 'hybrid', modelDir });
  if (!embedder || !index.manifest.embedder) throw new Error('the index has no vectors: build it with --model-dir models (README, "Measured on the real corpus").');
  const queryPrefix = index.manifest.embedder.queryPrefix;
  const prefix = `${embedder.id}\u0000${embedder.fingerprint}\u0000single\u0000`;
  const cache: Record<string, number[]> = existsSync(cacheFile) ? (JSON.parse(await readFile(cacheFile, 'utf8')) as Record<string, number[]>) : {};
  let added = 0;
  // Texts with another prefix (the passages the quotes' tie-break compares, "passage: …") go to the
  // same model with no prefix of its own, loaded when first needed.
  let plain: Promise<Embedder> | null = null;
  const embedQuery = async (prefixed: string): Promise<Float32Array> => {
    const query = prefixed.startsWith(queryPrefix);
    // The service hands over a question with the index's query prefix; the embedder adds its own.
    const text = query ? prefixed.slice(queryPrefix.length) : prefixed;
    const model = query ? embedder : await (plain ??= loadQueryEmbedder(index, { mode: 'hybrid', modelDir, prefix: '' }).then((e) => e!));
    const key = query ? prefix + text : `${model.id}\u0000${model.fingerprint}\u0000single\u0000${text}`;
    let vector = cache[key];
    if (!vector) {
      // One at a time, as `eval` and the widget embed a query: the q4 model quantises activations
      // over its whole input, so a query embedded in a batch comes out slightly different.
      const [embedded] = await model.embed([text]);
      vector = Array.from(embedded);
      cache[key] = vector;
      added++;
    }
    return Float32Array.from(vector);
  };
  return {
    embedQuery,
    save: async () => {
      if (!added) return;
      await mkdir(dirname(cacheFile), { recursive: true });
      await writeFile(cacheFile, JSON.stringify(cache));
      added = 0;
    },
    dispose: async () => {
      await embedder.dispose();
      if (plain) await (await plain).dispose();
    },
  };
}
