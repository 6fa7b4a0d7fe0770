/**
 * The questions' E5 vectors for the fitting scripts, embedded as `eval` and the widget embed a
 * question (one at a time) and kept in a JSON cache keyed by the embedder's id and fingerprint,
 * so a refit does not embed again.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { LoadedIndex } from '../../../widget/core/format/read-index.ts';
import type { QueryEmbedder } from '../../../widget/search/local-search-service.ts';
import { loadQueryEmbedder } from '../../commands/query-embedder.ts';

export async function queryVectors(index: LoadedIndex, texts: readonly string[], modelDir: string, cacheFile: string): Promise<Map<string, Float32Array>> {
  const embedder = await loadQueryEmbedder(index, { mode: 'hybrid', modelDir });
  if (!embedder) throw new Error('the index has no vectors: build it with --model-dir models (README, "Measured on the real corpus").');
  const prefix = `${embedder.id}\u0000${embedder.fingerprint}\u0000single\u0000`;
  let cache: Record<string, number[]> = {};
  if (existsSync(cacheFile)) cache = JSON.parse(await readFile(cacheFile, 'utf8')) as Record<string, number[]>;
  const missing = [...new Set(texts)].filter((t) => !cache[prefix + t]);
  for (const [i, text] of missing.entries()) {
    // One at a time, as `eval` and the widget embed a query: the q4 model quantises activations
    // over its whole input, so a query embedded in a batch comes out slightly different.
    const [vector] = await embedder.embed([text]);
    cache[prefix + text] = Array.from(vector);
    if (i % 16 === 15 || i === missing.length - 1) process.stderr.write(`\rembedding questions ${i + 1}/${missing.length}`);
  }
  if (missing.length) {
    process.stderr.write('\n');
    await mkdir(dirname(cacheFile), { recursive: true });
    await writeFile(cacheFile, JSON.stringify(cache));
  }
  await embedder.dispose();
  return new Map(texts.map((t) => [t, Float32Array.from(cache[prefix + t])]));
}

/**
 * A query embedder for LocalSearchService (hybrid search, as the widget runs it) over the same
 * cache: a question already embedded is read back, any other text (a follow-up the loop rewrote)
 * is embedded one at a time and added. `save()` writes the cache back when anything was added.
 */
export async function cachedQueryEmbedder(index: LoadedIndex, modelDir: string, cacheFile: string): Promise<{ embedQuery: QueryEmbedder; save: () => Promise<void>; dispose: () => Promise<void> }> {
  const embedder = await loadQueryEmbedder(index, { mode: 'hybrid', modelDir });
  if (!embedder || !index.manifest.embedder) throw new Error('the index has no vectors: build it with --model-dir models (README, "Measured on the real corpus").');
  const queryPrefix = index.manifest.embedder.queryPrefix;
  const prefix = `${embedder.id}\u0000${embedder.fingerprint}\u0000single\u0000`;
  const cache: Record<string, number[]> = existsSync(cacheFile) ? (JSON.parse(await readFile(cacheFile, 'utf8')) as Record<string, number[]>) : {};
  let added = 0;
  const embedQuery: QueryEmbedder = async (prefixed) => {
    // The service hands over the text with the index's query prefix; the embedder adds its own.
    const text = prefixed.startsWith(queryPrefix) ? prefixed.slice(queryPrefix.length) : prefixed;
    let vector = cache[prefix + text];
    if (!vector) {
      const [embedded] = await embedder.embed([text]);
      vector = Array.from(embedded);
      cache[prefix + text] = vector;
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
    dispose: () => embedder.dispose(),
  };
}
