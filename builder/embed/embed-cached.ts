/**
 * Embedding through the cache: texts whose key is cached are not embedded again, the rest are
 * embedded in groups and written to the cache as they come, so a cancelled or crashed build
 * keeps what it had already paid for.
 */
import type { WorkOptions } from '../../widget/core/schema.ts';
import { EmbeddingCache } from './cache.ts';
import type { Embedder } from './embedder.ts';

export interface CachedItem {
  /** A hash of exactly what is embedded (prefix excluded: the cache is per model and use). */
  key: string;
  text: string;
}

export interface CachedEmbedding {
  vectors: Float32Array[];
  /** How many texts were embedded now. */
  embedded: number;
  /** How many came from the cache, or repeat a text embedded in this call. */
  hits: number;
  /** Why an existing cache was ignored (model changed, damaged files), or null. */
  discarded: string | null;
}

export interface EmbedCachedOptions extends WorkOptions {
  cacheDir: string;
  /** Texts embedded between two cache saves; default 512. */
  saveEvery?: number;
}

export async function embedWithCache(embedder: Embedder, items: readonly CachedItem[], options: EmbedCachedOptions): Promise<CachedEmbedding> {
  const { signal, onProgress, saveEvery = 512 } = options;
  const cache = await EmbeddingCache.open(options.cacheDir, embedder.id, embedder.dimensions, { fingerprint: embedder.fingerprint });
  const vectors = cache.getMany(items.map((i) => i.key));
  // One embedding per distinct text: the same passage under two documents (a booklet and its
  // copy) has one key. The Harel corpus has 426 such repeats in 15,744 chunks.
  const firstOfKey = new Map<string, number>();
  const missing: number[] = [];
  vectors.forEach((v, i) => {
    if (v || firstOfKey.has(items[i].key)) return;
    firstOfKey.set(items[i].key, i);
    missing.push(i);
  });
  let done = 0;
  try {
    for (let start = 0; start < missing.length; start += saveEvery) {
      const group = missing.slice(start, start + saveEvery);
      const fresh = await embedder.embed(
        group.map((i) => items[i].text),
        { signal, onProgress: (p) => onProgress?.({ ...p, done: done + p.done, total: missing.length }) },
      );
      group.forEach((itemIndex, j) => {
        vectors[itemIndex] = fresh[j];
        cache.set(items[itemIndex].key, fresh[j]);
      });
      done += group.length;
      if (start + saveEvery < missing.length) await cache.save();
    }
  } finally {
    await cache.save();
  }
  vectors.forEach((v, i) => {
    if (!v) vectors[i] = vectors[firstOfKey.get(items[i].key) as number];
  });
  return { vectors: vectors as Float32Array[], embedded: missing.length, hits: items.length - missing.length, discarded: cache.discarded };
}
